/work/main/.output-asan/bpf/counters.bpf.o: bpf/counters.bpf.c \
  vmlinux/x86/vmlinux.h include/abi/counters.h include/abi/common.h \
  bpf/lib/target.bpf.h

vmlinux/x86/vmlinux.h:

include/abi/counters.h:

include/abi/common.h:

bpf/lib/target.bpf.h:
