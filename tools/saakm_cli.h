/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The saakm(1) subcommands that live outside saakm.c: record, replay and
 * trace-json (record and replay). Each takes the arguments after
 * "saakm" (argv[0] is the subcommand) and returns the exit status.
 */
#ifndef SAAKM_CLI_H
#define SAAKM_CLI_H

int cmd_record(int argc, char **argv);		/* saakm_record.c */
int cmd_replay(int argc, char **argv);		/* saakm_replay.c */
int cmd_trace_json(int argc, char **argv);	/* saakm_json.c */
int cmd_rec_convert(int argc, char **argv);	/* saakm_record.c */
int cmd_rec_dump(int argc, char **argv);	/* saakm_json.c */

#endif /* SAAKM_CLI_H */
