# The toolchain and the build rule every sched_ext twin of bench/ shares
# (ext_fifo, ext_wfq): included by their Makefiles after ROOT, KDIR and OUT.
# libbpf, bpftool and vmlinux.h are built by bench/ext_fifo/Makefile into
# $(OUT)/scx; `$(eval $(call ext_scheduler,NAME))` builds $(OUT)/NAME from
# NAME.bpf.c and its loader NAME.c.

SCX     := $(KDIR)/tools/sched_ext
SCXO    := $(OUT)/scx
SCXB    := $(SCXO)/build
CLANG   ?= clang-19
BPFTOOL := $(SCXB)/sbin/bpftool
LIBBPF  := $(SCXB)/obj/libbpf/libbpf.a
VMLINUX_H := $(SCXB)/include/vmlinux.h

SYS_INCLUDES := $(shell $(CLANG) -v -E - </dev/null 2>&1 | \
	sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
BPF_CFLAGS := -g -D__TARGET_ARCH_x86 -mlittle-endian \
	-I$(SCX)/include -I$(SCX)/include/bpf-compat -I$(SCXB)/include \
	-I$(KDIR)/tools/include/uapi -I$(KDIR)/include $(SYS_INCLUDES) \
	-Wall -Wno-compare-distinct-pointer-types -O2 -mcpu=v3
CFLAGS := -g -O2 -Wall -Werror -I$(SCXB)/include -I$(KDIR)/include/generated \
	-I$(KDIR)/tools/lib -I$(KDIR)/tools/include -I$(KDIR)/tools/include/uapi -I$(SCX)/include
LDLIBS := -lelf -lz -lpthread

# ext_scheduler NAME: BPF object, skeleton, loader (objects in $(OUT)/NAME.obj)
define ext_scheduler
$(OUT)/$(1).obj/$(1).bpf.o: $(1).bpf.c $(VMLINUX_H) $(LIBBPF)
	@mkdir -p $$(@D)
	$(CLANG) $(BPF_CFLAGS) -target bpf -c $$< -o $$@

$(OUT)/$(1).obj/$(1).bpf.skel.h: $(OUT)/$(1).obj/$(1).bpf.o $(BPFTOOL)
	$(BPFTOOL) gen object $(OUT)/$(1).obj/$(1).linked.o $$<
	$(BPFTOOL) gen skeleton $(OUT)/$(1).obj/$(1).linked.o name $(1) > $$@

$(OUT)/$(1): $(1).c $(OUT)/$(1).obj/$(1).bpf.skel.h $(LIBBPF) $(ROOT)/bench/ext_loader.h
	$(CC) $(CFLAGS) -I$(OUT)/$(1).obj -o $$@ $(1).c $(LIBBPF) $(LDLIBS)
endef
