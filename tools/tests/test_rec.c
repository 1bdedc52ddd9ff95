// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of libsaakm's recordings (tools/lib/saakm_rec.c): the
 * name tables (record and input kinds) and the transition table from the
 * uapi X-macros, the file round trip (little-endian layout), every kind of
 * corrupt or short file,
 * the saakm:saakm_record trace text parser (against hand-made lines and
 * the fixture fixtures/record/fifo.trace), and lost-record detection (seq
 * gaps, duplicates, ring-buffer stats, "[LOST n EVENTS]" lines).
 * Prints TAP (tests/guest/tap.h). Usage: test_rec FIXTURES_DIR
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "saakm_rec.h"
#include "tap.h"

static char tmpdir[] = "/tmp/test_rec.XXXXXX";

static const char *tmp(const char *name)
{
	static char path[4][512];
	static int n;

	snprintf(path[n & 3], sizeof(path[0]), "%s/%s", tmpdir, name);
	return path[n++ & 3];
}

static void test_names(void)
{
	int legal = 0;

	tap_subtest("names");
	TAP_CHECK(SAAKM_NR_REC_KINDS == 6 && SAAKM_REC_CALL == 0 && SAAKM_REC_ERROR == 5 &&
		  !strcmp(saakm_rec_kind_names[SAAKM_REC_FORCE], "FORCE"),
		  "record kinds from SAAKM_REC_KINDS, in order");
	TAP_CHECK(saakm_rec_kind_index("state") == SAAKM_REC_STATE && saakm_rec_kind_index("x") == -1,
		  "kind index by name");
	TAP_CHECK(SAAKM_NR_INPUTS == 5 && SAAKM_INPUT_RUNNING_NS == 0 && SAAKM_INPUT_EXEC_NS == 2 &&
		  SAAKM_INPUT_READ_CPU == 3 && SAAKM_INPUT_CLOCK == 4 &&
		  !strcmp(saakm_input_name(SAAKM_INPUT_EXEC_NS), "exec_ns") &&
		  !strcmp(saakm_input_name(SAAKM_INPUT_READ_CPU), "read_cpu") &&
		  !strcmp(saakm_input_name(SAAKM_INPUT_CLOCK), "clock") &&
		  !strcmp(saakm_input_name(SAAKM_NR_INPUTS), "?"),
		  "input kinds from SAAKM_INPUTS, in order, named");
	TAP_CHECK(saakm_rec_transition_ok(SAAKM_ST_READY, SAAKM_ST_RUNNING) &&
		  saakm_rec_transition_ok(SAAKM_ST_MIGRATING, SAAKM_ST_TERMINATED) &&
		  !saakm_rec_transition_ok(SAAKM_ST_RUNNING, SAAKM_ST_MIGRATING) &&
		  !saakm_rec_transition_ok(SAAKM_ST_NOT_QUEUED, SAAKM_ST_RUNNING) &&
		  !saakm_rec_transition_ok(SAAKM_ST_READY, SAAKM_ST_READY),
		  "transition table from SAAKM_TRANSITIONS");
	for (int f = 0; f < SAAKM_NR_STATES; f++)
		for (int t = 0; t < SAAKM_NR_STATES; t++)
			legal += saakm_rec_transition_ok(f, t);
#define COUNT(F, T) +1
	TAP_CHECK(legal == 0 SAAKM_TRANSITIONS(COUNT), "every listed transition, no other, is legal");
#undef COUNT
	TAP_CHECK(saakm_ev_returns(SAAKM_EV_SCHEDULE) == SAAKM_RET_TASK &&
		  saakm_ev_returns(SAAKM_EV_NEW_PREPARE) == SAAKM_RET_INT &&
		  saakm_ev_returns(SAAKM_EV_BLOCK) == SAAKM_RET_VOID &&
		  !saakm_ev_has_cpu(SAAKM_EV_TERMINATE) && saakm_ev_has_cpu(SAAKM_EV_TICK) &&
		  !saakm_ev_has_task(SAAKM_EV_SCHEDULE) && saakm_ev_has_task(SAAKM_EV_YIELD),
		  "callback properties (return kind, cpu and task arguments)");
}

/* A small recording with every kind and extreme values. */
static void sample(struct saakm_recording *r)
{
	const struct saakm_rec recs[] = {
		{ .seq = 1, .ts_ns = 1000, .kind = SAAKM_REC_CALL, .ev = SAAKM_EV_NEW_PREPARE,
		  .cpu = 3, .pid = 4194303, .a = -1, .b = -20, .c = ~0ULL, .on_cpu = 3 },
		{ .seq = 2, .ts_ns = 1001, .kind = SAAKM_REC_RET, .ev = SAAKM_EV_NEW_PREPARE,
		  .cpu = 3, .pid = 4194303, .a = 2, .on_cpu = 3 },
		{ .seq = 3, .ts_ns = 1002, .kind = SAAKM_REC_STATE, .cpu = 2, .pid = 7,
		  .a = SAAKM_ST_READY, .b = 2, .c = SAAKM_ST_NOT_QUEUED, .on_cpu = 2 },
		{ .seq = 4, .ts_ns = 1003, .kind = SAAKM_REC_FORCE, .cpu = 2, .pid = 7,
		  .a = SAAKM_ST_RUNNING, .c = SAAKM_ST_READY, .on_cpu = 2 },
		{ .seq = 5, .ts_ns = 1004, .kind = SAAKM_REC_INPUT, .ev = SAAKM_INPUT_CAN_MIGRATE,
		  .pid = 7, .a = 1, .c = 1, .cpu = -1, .on_cpu = 0 },
		{ .seq = 9, .ts_ns = 1ULL << 62, .kind = SAAKM_REC_ERROR, .cpu = -1, .pid = -1,
		  .on_cpu = 3 },
	};

	memset(r, 0, sizeof(*r));
	saakm_rec_header_init(&r->hdr, "fifo", "saakm_fifo", "slice_ms=20 steal=Y", 4);
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		saakm_rec_push(r, &recs[i]);
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

static void test_round_trip(void)
{
	struct saakm_recording w, r;
	unsigned char raw[sizeof(struct saakm_rec_header) + 16];
	char err[256] = "";
	const char *path = tmp("a.rec");
	FILE *f;
	int ret;

	tap_subtest("file");
	sample(&w);
	ret = saakm_rec_write(path, &w.hdr, w.recs, w.nr, err, sizeof(err));
	TAP_CHECK(!ret, "write a recording");
	TAP_CHECK(file_size(path) == (long)(sizeof(struct saakm_rec_header) + w.nr * 48),
		  "file is the header plus 48 bytes a record");
	f = fopen(path, "r");
	TAP_CHECK(f && fread(raw, 1, sizeof(raw), f) == sizeof(raw) &&
		  !memcmp(raw, "SAAKMREC", 8) && raw[8] == 1 && raw[9] == 0 &&
		  raw[sizeof(struct saakm_rec_header)] == 1 && raw[sizeof(struct saakm_rec_header) + 1] == 0 &&
		  raw[sizeof(struct saakm_rec_header) + 8] == 0xe8 &&
		  raw[sizeof(struct saakm_rec_header) + 9] == 0x03,
		  "magic, then little-endian version, seq and ts_ns");
	if (f)
		fclose(f);
	ret = saakm_rec_read(path, &r, err, sizeof(err));
	TAP_CHECK(!ret && r.nr == w.nr && r.hdr.nr_records == w.nr && r.hdr.nr_cpus == 4 &&
		  !strcmp(r.hdr.policy, "fifo") && !strcmp(r.hdr.module, "saakm_fifo") &&
		  !strcmp(r.hdr.params, "slice_ms=20 steal=Y"), "read back the header");
	TAP_CHECK(!ret && !memcmp(r.recs, w.recs, w.nr * sizeof(*w.recs)),
		  "read back every record field (negative, 64-bit, on_cpu)");
	saakm_recording_free(&r);
	ret = saakm_rec_write(tmp("empty.rec"), &w.hdr, NULL, 0, err, sizeof(err));
	TAP_CHECK(!ret && !saakm_rec_read(tmp("empty.rec"), &r, err, sizeof(err)) && r.nr == 0,
		  "an empty recording round-trips");
	saakm_recording_free(&w);
}

/* Write @len bytes of the sample file, with @patch bytes at @off; read it. */
static int corrupt(size_t len, size_t off, const void *patch, size_t n, char *err, size_t errlen)
{
	struct saakm_recording w, r;
	const char *good = tmp("good.rec"), *bad = tmp("bad.rec");
	char buf[4096];
	size_t got;
	FILE *f;
	int ret;

	sample(&w);
	saakm_rec_write(good, &w.hdr, w.recs, w.nr, err, errlen);
	saakm_recording_free(&w);
	f = fopen(good, "r");
	got = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (len > got)
		len = got;
	if (patch)
		memcpy(buf + off, patch, n);
	f = fopen(bad, "w");
	fwrite(buf, 1, len, f);
	fclose(f);
	err[0] = '\0';
	ret = saakm_rec_read(bad, &r, err, errlen);
	saakm_recording_free(&r);
	return ret;
}

static void test_corrupt(void)
{
	const size_t H = sizeof(struct saakm_rec_header), FULL = H + 6 * 48;
	const uint32_t v2 = 2, big = 5000, tiny = 16;
	const uint64_t nr7 = 7, seq1 = 1;
	const uint8_t kind9 = 9, state9 = 9, pad = 1, input4 = SAAKM_NR_INPUTS;
	const uint8_t exec_ns = SAAKM_INPUT_EXEC_NS, read_cpu = SAAKM_INPUT_READ_CPU;
	const uint8_t clock = SAAKM_INPUT_CLOCK;
	const char name[32] = "01234567890123456789012345678901";
	char err[256];

	tap_subtest("corrupt");
	TAP_CHECK(corrupt(FULL, 0, "SAAKMRED", 8, err, sizeof(err)) == -EINVAL && strstr(err, "magic"),
		  "bad magic is refused, naming the magic");
	TAP_CHECK(corrupt(FULL, 8, &v2, 4, err, sizeof(err)) == -EINVAL && strstr(err, "version 2"),
		  "another version is refused, naming it");
	TAP_CHECK(corrupt(FULL, 12, &tiny, 4, err, sizeof(err)) == -EINVAL && strstr(err, "header size"),
		  "a header_size below the known header is refused");
	TAP_CHECK(corrupt(FULL, 16, &big, 4, err, sizeof(err)) == -EINVAL && strstr(err, "CPUs"),
		  "an absurd CPU count is refused");
	TAP_CHECK(corrupt(FULL, 40, name, 32, err, sizeof(err)) == -EINVAL && strstr(err, "terminated"),
		  "an unterminated policy name is refused");
	TAP_CHECK(corrupt(100, 0, NULL, 0, err, sizeof(err)) == -EINVAL && strstr(err, "short file"),
		  "a file shorter than the header is refused");
	TAP_CHECK(corrupt(0, 0, NULL, 0, err, sizeof(err)) == -EINVAL && strstr(err, "short file"),
		  "an empty file is refused");
	TAP_CHECK(corrupt(FULL - 10, 0, NULL, 0, err, sizeof(err)) == -EINVAL && strstr(err, "truncated"),
		  "a truncated record is refused");
	TAP_CHECK(corrupt(FULL, 24, &nr7, 8, err, sizeof(err)) == -EINVAL && strstr(err, "7 records expected"),
		  "nr_records beyond the file is refused");
	TAP_CHECK(corrupt(FULL, H + 48, &seq1, 8, err, sizeof(err)) == -EINVAL && strstr(err, "not sorted"),
		  "records out of seq order are refused");
	TAP_CHECK(corrupt(FULL, H + 38, &kind9, 1, err, sizeof(err)) == -EINVAL && strstr(err, "unknown kind"),
		  "an unknown record kind is refused");
	TAP_CHECK(corrupt(FULL, H + 2 * 48 + 28, &state9, 1, err, sizeof(err)) == -EINVAL &&
		  strstr(err, "unknown state"), "an unknown state is refused");
	TAP_CHECK(corrupt(FULL, H + 4 * 48 + 39, &input4, 1, err, sizeof(err)) == -EINVAL &&
		  strstr(err, "unknown input"), "an unknown input kind is refused");
	TAP_CHECK(corrupt(FULL, H + 4 * 48 + 39, &exec_ns, 1, err, sizeof(err)) == 0,
		  "an exec_ns input (SAAKM_INPUT_EXEC_NS) is accepted");
	TAP_CHECK(corrupt(FULL, H + 4 * 48 + 39, &read_cpu, 1, err, sizeof(err)) == 0,
		  "a read_cpu input (SAAKM_INPUT_READ_CPU) is accepted");
	TAP_CHECK(corrupt(FULL, H + 4 * 48 + 39, &clock, 1, err, sizeof(err)) == 0,
		  "a clock input (SAAKM_INPUT_CLOCK) is accepted");
	TAP_CHECK(corrupt(FULL, H + 42, &pad, 1, err, sizeof(err)) == -EINVAL && strstr(err, "padding"),
		  "non-zero padding is refused");
	TAP_CHECK(corrupt(FULL, 0, NULL, 0, err, sizeof(err)) == 0, "the unpatched file reads (control)");
	{
		struct saakm_recording r;

		TAP_CHECK(saakm_rec_read(tmp("nosuch.rec"), &r, err, sizeof(err)) == -ENOENT &&
			  strstr(err, "nosuch.rec"), "a missing file is -ENOENT, naming it");
	}
	{
		struct saakm_recording w;

		sample(&w);
		w.recs[1].seq = 1;
		TAP_CHECK(saakm_rec_write(tmp("w.rec"), &w.hdr, w.recs, w.nr, err, sizeof(err)) == -EINVAL &&
			  access(tmp("w.rec"), F_OK), "write refuses unsorted records and writes nothing");
		saakm_recording_free(&w);
	}
}

static void test_parse_line(void)
{
	struct saakm_rec r;
	int pol = 0, n;

	tap_subtest("trace text");
	n = saakm_rec_parse_line("   a [b] c-12    [003] d..2.  12.000001: saakm_record: policy=4 seq=77 "
				 "kind=2 ev=0 cpu=-1 pid=12 a=3 b=-1 c=18446744073709551615\n", &r, &pol);
	TAP_CHECK(n == 1 && pol == 4 && r.seq == 77 && r.kind == SAAKM_REC_STATE && r.cpu == -1 &&
		  r.pid == 12 && r.a == 3 && r.b == -1 && r.c == ~0ULL,
		  "a record line: every field, c as unsigned 64-bit");
	TAP_CHECK(n == 1 && r.on_cpu == 3 && r.ts_ns == 12000001000ULL,
		  "on_cpu from the [CPU] column (comm with brackets), ts in ns from µs");
	n = saakm_rec_parse_line("x-1 [000] 5.123456789: saakm_record: policy=1 seq=1 kind=0 ev=8 cpu=0 "
				 "pid=-1 a=-1 b=-1 c=0 on_cpu=9", &r, &pol);
	TAP_CHECK(n == 1 && r.ts_ns == 5123456789ULL && r.on_cpu == 9 && r.ev == SAAKM_EV_SCHEDULE,
		  "9-digit timestamps; an on_cpu= field wins over the column");
	TAP_CHECK(saakm_rec_parse_line("# tracer: nop", &r, &pol) == 0 &&
		  saakm_rec_parse_line("x-1 [000] 5.1: sched_switch: prev_comm=a", &r, &pol) == 0 &&
		  saakm_rec_parse_line("", &r, &pol) == 0, "comments and other events are not records");
	TAP_CHECK(saakm_rec_parse_line("x-1 [000] 5.1: saakm_record: policy=1 seq=1 kind=0 ev=8 cpu=0 pid=-1 a=-1 b=-1",
				       &r, &pol) == -EINVAL, "a missing field is an error");
	TAP_CHECK(saakm_rec_parse_line("x-1 [000] 5.1: saakm_record: policy=1 seq=1 kind=0 ev=8 cpu=0 pid=-1 a=x1 b=-1 c=0",
				       &r, &pol) == -EINVAL, "a bad number is an error");
	TAP_CHECK(saakm_rec_parse_line("x-1 [000] 5.1: saakm_record: policy=1 seq=1 kind=0 ev=8 cpu=0 pid=-1 a=-1 b=-1 c=18446744073709551616",
				       &r, &pol) == -EINVAL &&
		  saakm_rec_parse_line("x-1 [000] 5.1: saakm_record: policy=1 seq=1 kind=0 ev=8 cpu=0 pid=-1 a=-2147483649 b=-1 c=0",
				       &r, &pol) == -EINVAL, "numbers out of range are errors");
	TAP_CHECK(saakm_rec_parse_line("x-1 [000] 5.1: saakm_record: policy=1 seq=0 kind=0 ev=8 cpu=0 pid=-1 a=-1 b=-1 c=0",
				       &r, &pol) == -EINVAL, "seq 0 is an error");
	TAP_CHECK(saakm_rec_parse_line("x-1 [000] 5.1: saakm_record: policy=1 seq=1 kind=0 ev=8 cpu=0 pid=-1 a=-1 b=-1 c=0 zz=1",
				       &r, &pol) == -EINVAL, "an unknown field is an error");
	TAP_CHECK(saakm_rec_parse_line("x-1 000 5.1: saakm_record: policy=1 seq=1 kind=0 ev=8 cpu=0 pid=-1 a=-1 b=-1 c=0",
				       &r, &pol) == -EINVAL, "no [CPU] column and no on_cpu= is an error");
}

static void test_fixture(const char *fixtures)
{
	struct saakm_recording r = { 0 };
	struct saakm_trace_stats st;
	uint64_t dup = 0, first;
	char path[512];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/record/fifo.trace", fixtures);
	f = fopen(path, "r");
	TAP_CHECK(f, "open fixtures/record/fifo.trace");
	if (!f)
		return;
	ret = saakm_rec_parse_trace(f, 1, &r, &st);
	fclose(f);
	TAP_CHECK(!ret && r.nr == 57 && st.other_policy == 1 && st.bad == 0 && st.lost_lines == 0,
		  "fixture: 57 records of policy 1, one of policy 2 skipped");
	TAP_CHECK(!saakm_rec_sort(&r, &dup) && saakm_rec_gaps(r.recs, r.nr, &first) == 0 && !first,
		  "fixture: sorted, no gap");
	TAP_CHECK(r.nr == 57 && r.recs[11].on_cpu == 1 && r.recs[10].on_cpu == 0 &&
		  r.recs[11].kind == SAAKM_REC_CALL && r.recs[11].ev == SAAKM_EV_NEW_PREPARE,
		  "fixture: interleaved CPUs keep their on_cpu");
	saakm_recording_free(&r);
}

static void test_lost(void)
{
	struct saakm_recording r = { 0 };
	struct saakm_trace_stats st;
	struct saakm_rec x = { .kind = SAAKM_REC_ERROR };
	const uint64_t seqs[] = { 9, 2, 1, 3, 6, 5 };
	uint64_t first = 0, dup = 0, lost = 0;
	FILE *f;

	tap_subtest("lost records");
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		x.seq = seqs[i];
		saakm_rec_push(&r, &x);
	}
	TAP_CHECK(!saakm_rec_sort(&r, &dup) && r.recs[0].seq == 1 && r.recs[5].seq == 9,
		  "records are sorted by seq");
	TAP_CHECK(saakm_rec_gaps(r.recs, r.nr, &first) == 3 && first == 4,
		  "gaps: seq 4, 7 and 8 missing, first 4");
	r.recs[0].seq = 2;
	TAP_CHECK(saakm_rec_sort(&r, &dup) == -EEXIST && dup == 2, "a seq seen twice is reported");
	r.nr = 0;
	x.seq = 3;
	saakm_rec_push(&r, &x);
	TAP_CHECK(saakm_rec_gaps(r.recs, r.nr, &first) == 2 && first == 1,
		  "records missing before the first one count");
	saakm_recording_free(&r);

	f = fopen(tmp("stats"), "w");
	fputs("entries: 900\noverrun: 5\ncommit overrun: 1\nbytes: 4096\noldest event ts: 1.0\n"
	      "now ts: 2.0\ndropped events: 7\nread events: 0\n", f);
	fclose(f);
	TAP_CHECK(!saakm_rec_cpu_lost(tmp("stats"), &lost) && lost == 13,
		  "ring buffer stats: overrun + commit overrun + dropped events");
	TAP_CHECK(saakm_rec_cpu_lost(tmp("nostats"), &lost) == -ENOENT, "missing stats file: -ENOENT");

	f = fopen(tmp("lost.trace"), "w+");
	fputs("x-1 [000] 5.1: saakm_record: policy=1 seq=1 kind=5 ev=0 cpu=-1 pid=-1 a=-1 b=-1 c=0\n"
	      "CPU:1 [LOST 17 EVENTS]\n"
	      "x-1 [000] 5.2: saakm_record: policy=1 seq=2 kind=5 ev=0 cpu=-1 pid=-1 a=-1 b=-1\n", f);
	rewind(f);
	TAP_CHECK(!saakm_rec_parse_trace(f, 0, &r, &st) && r.nr == 1 && st.lost_lines == 17 &&
		  st.bad == 1 && st.first_bad_line == 3,
		  "trace text: [LOST n EVENTS] counted, a bad record line counted with its line");
	fclose(f);
	saakm_recording_free(&r);
}

static void test_format(void)
{
	struct saakm_rec r = { .seq = 1, .kind = SAAKM_REC_RET, .ev = SAAKM_EV_SCHEDULE, .cpu = 2,
			       .a = 345 };
	char buf[160];

	tap_subtest("format");
	TAP_CHECK(!strcmp(saakm_rec_format(&r, buf, sizeof(buf)), "RET   schedule cpu 2 -> pid 345"),
		  "RET of schedule names the task");
	r.a = -1;
	TAP_CHECK(strstr(saakm_rec_format(&r, buf, sizeof(buf)), "-> NULL") != NULL, "NULL pick");
	r = (struct saakm_rec){ .kind = SAAKM_REC_STATE, .pid = 5, .a = SAAKM_ST_RUNNING,
				.c = SAAKM_ST_READY, .cpu = 1, .b = -1 };
	TAP_CHECK(!strcmp(saakm_rec_format(&r, buf, sizeof(buf)), "STATE pid 5 READY -> RUNNING cpu 1 rq -1"),
		  "STATE names both states");
	r = (struct saakm_rec){ .kind = SAAKM_REC_INPUT, .ev = SAAKM_INPUT_EXEC_NS, .pid = 5,
				.a = -1, .cpu = -1, .c = 123456789 };
	TAP_CHECK(!strcmp(saakm_rec_format(&r, buf, sizeof(buf)), "INPUT exec_ns pid 5 = 123456789"),
		  "INPUT of saakm_exec_ns() names it, with its value");
	r = (struct saakm_rec){ .kind = SAAKM_REC_INPUT, .ev = SAAKM_INPUT_READ_CPU, .pid = -1,
				.a = 1, .cpu = -1, .c = 3 };
	TAP_CHECK(!strcmp(saakm_rec_format(&r, buf, sizeof(buf)), "INPUT read_cpu cpu 1 = 3"),
		  "INPUT of saakm_read_cpu() names the CPU read, with its value");
	r = (struct saakm_rec){ .kind = SAAKM_REC_INPUT, .ev = SAAKM_INPUT_CLOCK, .pid = -1,
				.a = -1, .cpu = -1, .c = 42 };
	TAP_CHECK(!strcmp(saakm_rec_format(&r, buf, sizeof(buf)), "INPUT clock = 42"),
		  "INPUT of saakm_clock_ns() gives the time");
	r.pid = 5;
	r.c = 123456789;
	r.ev = SAAKM_NR_INPUTS;
	TAP_CHECK(!strcmp(saakm_rec_format(&r, buf, sizeof(buf)), "INPUT ? pid 5 = 123456789"),
		  "an unknown input kind is shown as ?");
}

int main(int argc, char **argv)
{
	char cmd[600];

	if (argc != 2 || !mkdtemp(tmpdir)) {
		fprintf(stderr, "usage: test_rec FIXTURES_DIR\n");
		return 2;
	}
	test_names();
	test_round_trip();
	test_corrupt();
	test_parse_line();
	test_fixture(argv[1]);
	test_lost();
	test_format();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return tap_done();
}
