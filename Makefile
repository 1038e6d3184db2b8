# fabcert build. `make` builds everything whose dependencies are present
# (parts whose toolkits are absent are left out with one line saying so);
# `make check` runs every test through prove's harness, in parallel lanes
# (tests/lanes); `make bench` prints figures;
# `make run` is the quick-start certification of this machine.

BUILD    ?= build
MPICC    ?= mpicc
CFLAGS   ?= -O3 -g
# position-independent everywhere: the GPU plugin links some lib objects
override CFLAGS += -fPIC
REVISION := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
# lib/ in folders by concept (docs/ARCHITECTURE.md, tests/layers/layers.txt);
# lib/gpu/ is the plugin, built apart
LIB_DIRS := $(filter-out lib/gpu,$(patsubst %/,%,$(sort $(dir $(wildcard lib/*/*.[ch])))))
LIB_INC  := $(addprefix -I,$(LIB_DIRS))
CPPFLAGS += -Ilib $(LIB_INC) -Ikernels -Ireports -Irunners -Itests/lib -DFC_GIT_REVISION='"$(REVISION)"'
WARN     := -Wall -Wextra -Wshadow -Wno-unused-parameter
LIBS     := -lfyaml -ljansson -lxxhash -lsodium -lm -ldl
# the verbs NIC transport (lib/nic/fc_nic_verbs*.c) where libibverbs' header is
# found; else it is built as a table whose every call is a skip saying so.
# --as-needed: only the programs that use the transport depend on it.
VERBS_H  := $(wildcard /usr/include/infiniband/verbs.h)
ifneq ($(VERBS_H),)
CPPFLAGS += -DFC_HAVE_VERBS
LIBS     += -Wl,--push-state,--as-needed -libverbs -Wl,--pop-state
else
$(info fabcert: verbs transport without libibverbs: install libibverbs-dev (RDMA checks skip until then))
endif
# stage programs export their symbols, so the GPU plugin shares their
# logging and descriptors
LDEXPORT := -rdynamic

LIB_SRCS := $(wildcard $(addsuffix /*.c,$(LIB_DIRS))) $(wildcard kernels/*.c)
LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
# the profile loader (lib/profile/fc_profile*.c), MPI-free: also linked by the
# MPI-free node program and the fuzz target
PROFILE_SRCS := $(wildcard lib/profile/fc_profile*.c)
SUITES   := $(patsubst suites/%.c,$(BUILD)/suites/%,$(wildcard suites/*.c))
UNIT     := $(patsubst tests/unit/%.c,$(BUILD)/tests/%.t,$(wildcard tests/unit/*.c))
BENCH    := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))
# the fabcert command: runners/ (plan, launch) and reports/ (verdicts)
CMD_SRCS := $(wildcard runners/*.c) $(wildcard reports/*.c)
CMD_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(CMD_SRCS))

.PHONY: all check check-layers bench run deps clean install
.SECONDARY:
INJECT   := $(BUILD)/libfc_inject.so
NOSTART  := $(BUILD)/libfc_nostart.so
PINCPU   := $(BUILD)/libfc_pincpu.so
STANDIN  := $(BUILD)/tests/libfc_gpu_standin.so
all: $(BUILD)/libfabcert.a $(SUITES) $(BUILD)/fabcert $(UNIT) $(BENCH) $(INJECT) $(NOSTART) $(PINCPU) $(STANDIN)

# each object depends on the headers it includes, as the compiler found
# them (-MMD: BUILD/.../x.d beside x.o; -MP: a header since removed is
# no error); the .d files are read at the end of this file
DEPFLAGS  = -MMD -MP -MF $(@:.o=.d)
# an object compiled before there were .d files is compiled once more: the
# stamp, made when it is missing, is newer than every such object
DEPSTAMP := $(BUILD)/.deps-made
$(shell mkdir -p $(BUILD) && { [ -e $(DEPSTAMP) ] || touch $(DEPSTAMP); })

$(DEPSTAMP):
	@mkdir -p $(dir $@)
	@touch $@

$(BUILD)/obj/%.o: %.c $(DEPSTAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c $< -o $@

# the CPU checker's hot loops, one object per instruction set
# (kernels/fc_check_isa.h); fc_check_base.o takes the flags above alone
$(BUILD)/obj/kernels/fc_check_avx2.o: override CFLAGS += -march=x86-64-v3
$(BUILD)/obj/kernels/fc_check_avx512.o: override CFLAGS += -march=x86-64-v4 -mprefer-vector-width=512
FC_CHECK_OBJS := $(addprefix $(BUILD)/obj/kernels/,fc_check_base.o fc_check_avx2.o fc_check_avx512.o)

$(BUILD)/libfabcert.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@rm -f $@       # a removed source must not live on in the archive
	ar rcs $@ $^

$(BUILD)/suites/%: $(BUILD)/obj/suites/%.o $(BUILD)/libfabcert.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(LDEXPORT) -o $@ $^ $(LIBS)

$(BUILD)/fabcert: $(CMD_OBJS) $(BUILD)/libfabcert.a
	$(MPICC) $(CFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/tests/%.t: $(BUILD)/obj/tests/unit/%.o $(BUILD)/libfabcert.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $^ $(LIBS)

# the runner's diagnosis, tested on fixture lines: the command's objects
# but its main
CMD_LIB_OBJS := $(filter-out $(BUILD)/obj/runners/fabcert.o,$(CMD_OBJS))
$(BUILD)/tests/diagnose.t $(BUILD)/tests/diagnose_nostart.t $(BUILD)/tests/probe_place.t: $(BUILD)/tests/%.t: $(BUILD)/obj/tests/unit/%.o $(CMD_LIB_OBJS) $(BUILD)/libfabcert.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(BUILD)/libfabcert.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $^ $(LIBS)

# the verbs transport on real devices, for tests/rdma/run-rdma-checks; its
# set-up against stand-in libibverbs calls, run by tests/e2e/rdma_checks.t
RDMA_PAIR := $(BUILD)/tests/rdma_pair
VERBS_SETUP := $(BUILD)/tests/verbs_setup
all: $(RDMA_PAIR) $(VERBS_SETUP)
$(BUILD)/tests/%: $(BUILD)/obj/tests/rdma/%.o $(BUILD)/libfabcert.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $^ $(LIBS)

# the tests' fault injector: an MPI interposition library (tests/inject)
$(INJECT): tests/inject/fc_inject.c tests/inject/fc_inject_mpi.c tests/inject/fc_inject.h
	$(MPICC) $(CFLAGS) $(WARN) -shared -o $@ $(filter %.c,$^)
# a program that cannot start on one host: a constructor that exits (tests/inject)
$(NOSTART): tests/inject/fc_nostart.c tests/inject/fc_plant_host.h
	$(CC) $(CFLAGS) $(WARN) -shared -o $@ $<
# a host whose stage programs share a core: a constructor that pins them (tests/inject)
$(PINCPU): tests/inject/fc_pincpu.c tests/inject/fc_plant_host.h
	$(CC) $(CFLAGS) $(WARN) -shared -o $@ $<

# a stand-in GPU plugin (tests/standin): its backend init fails everywhere,
# or (FC_GPU_STANDIN=host) runs the GPU ranks' failure protocol on host
# memory, with the NVML reader and a CPU stand-in for the burn; the stage
# program that opens it provides the rest
$(STANDIN): tests/standin/fc_gpu_standin.c tests/standin/fc_gemm_standin.c lib/gpu/fc_gpu_agree.c lib/gpu/fc_gpu_wait.c \
            lib/gpu/fc_nvml.c lib/gpu/fc_gpu_health.c $(wildcard lib/*/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) -Itests/standin $(CFLAGS) $(WARN) -shared -o $@ $(filter %.c,$^) -ljansson -ldl -lpthread

# ---- the GPU plugin: CUDA kernels and the nccl backend ---------------------
# Built when the CUDA toolkit (nvcc, cudart, cuBLASLt) and NCCL are found;
# otherwise left out with one line saying so, and the nccl backend reports
# itself unavailable at run time. Architectures: Ampere (sm_80) and Hopper
# (sm_90), plus PTX for newer GPUs. On nodes whose driver is older than
# this toolkit's runtime (CUDA 13 needs R580+), build with the node's own
# toolkit: make CUDA_HOME=/usr/local/cuda-12.x (docs/gpus.md).
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
GPU_ARCHS ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90
CUDA_LIB  := $(firstword $(dir $(wildcard $(CUDA_HOME)/lib64/libcudart.so $(CUDA_HOME)/lib/libcudart.so)))
CUBLASLT  := $(firstword $(wildcard $(CUDA_HOME)/lib64/libcublasLt.so $(CUDA_HOME)/lib/libcublasLt.so))
NCCL_INC  := $(firstword $(dir $(wildcard $(CUDA_HOME)/include/nccl.h /usr/include/nccl.h)))
NCCL_LIB  := $(firstword $(dir $(wildcard $(CUDA_HOME)/lib64/libnccl.so $(CUDA_HOME)/lib/libnccl.so \
                                          /usr/lib/x86_64-linux-gnu/libnccl.so)))
HAVE_GPU  := $(if $(and $(wildcard $(NVCC)),$(CUDA_LIB),$(CUBLASLT),$(NCCL_INC),$(NCCL_LIB)),yes,)
GPU_PLUGIN := $(BUILD)/libfabcert_gpu.so
GPU_NODE  := $(BUILD)/fabcert-node-gpu
GPU_TWINS := $(BUILD)/tests/pattern_twins.t
GPU_KTWINS := $(BUILD)/tests/kernel_twins.t
GPU_INC   := -I$(CUDA_HOME)/include $(if $(NCCL_INC),-I$(NCCL_INC))
GPU_LDFLAGS := -L$(CUDA_LIB) -L$(NCCL_LIB) -Wl,-rpath,$(CUDA_LIB) -Wl,-rpath,$(NCCL_LIB)
GPU_CUDA_LIBS := -lnccl -lcublasLt -lcudart
# the lib objects the plugin and the MPI-free program carry
GPU_LIB_OBJS := $(addprefix $(BUILD)/obj/,lib/base/fc_coll.o lib/base/fc_log.o lib/base/fc_status.o lib/base/fc_alloc.o \
                kernels/fc_pattern_host.o kernels/fc_kernels_cpu.o) $(FC_CHECK_OBJS)
# CUDA code, and GPU host code that needs neither CUDA nor MPI (NVML is
# opened at run time, the wait polls through a table)
GPU_CU_OBJS := $(addprefix $(BUILD)/obj/,kernels/fc_kernels_cuda.cu.o lib/gpu/fc_burn.cu.o)
GPU_HOST_OBJS := $(addprefix $(BUILD)/obj/lib/gpu/,fc_nvml.o fc_gpu_health.o fc_gpu_wait.o)
GPU_NODE_OBJS := $(patsubst suites/gpu/%.c,$(BUILD)/obj/suites/gpu/%.o,$(wildcard suites/gpu/*.c))

# host-side tests of the GPU code, built everywhere: the NVML reader and
# judge against a stand-in NVML, the failure protocol with a stand-in
# communicator (run under mpirun by tests/e2e/gpu_agree.t)
GPU_HEALTH_T := $(BUILD)/tests/gpu_health.t
NVML_STANDIN := $(BUILD)/tests/libfc_nvml_standin.so
GPU_AGREE := $(BUILD)/tests/gpu_agree
all: $(GPU_HEALTH_T) $(NVML_STANDIN) $(GPU_AGREE)
GPU_UNIT  := $(GPU_HEALTH_T) $(if $(HAVE_GPU),$(GPU_TWINS) $(GPU_KTWINS))

ifeq ($(HAVE_GPU),yes)
all: $(GPU_PLUGIN) $(GPU_NODE) $(GPU_TWINS) $(GPU_KTWINS)
else
$(info fabcert: GPU plugin skipped: need $(NVCC), libcudart, libcublasLt and NCCL (nccl.h, libnccl) under $(CUDA_HOME) or /usr; set CUDA_HOME)
endif

$(BUILD)/obj/%.cu.o: %.cu $(DEPSTAMP)
	@mkdir -p $(dir $@)
	$(NVCC) -O3 -Ikernels -Ilib $(LIB_INC) $(GPU_ARCHS) -Xcompiler -fPIC $(DEPFLAGS) -c $< -o $@

$(BUILD)/obj/lib/gpu/%.o: lib/gpu/%.c $(DEPSTAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(GPU_INC) $(CFLAGS) $(WARN) $(DEPFLAGS) -c $< -o $@

$(GPU_PLUGIN): $(GPU_CU_OBJS) $(BUILD)/obj/lib/gpu/fc_backend_nccl.o $(BUILD)/obj/lib/gpu/fc_gpu_gemm.o \
               $(BUILD)/obj/lib/gpu/fc_gpu_fabric.o \
               $(BUILD)/obj/lib/gpu/fc_gpu_agree.o $(GPU_HOST_OBJS) $(GPU_LIB_OBJS)
	$(MPICC) -shared -o $@ $^ $(GPU_LDFLAGS) $(GPU_CUDA_LIBS) -ljansson -lxxhash -ldl -lpthread -lstdc++ -lm

# the node stage in one process, without MPI (gcc, not mpicc)
$(BUILD)/obj/suites/gpu/%.o: suites/gpu/%.c $(DEPSTAMP)
	@mkdir -p $(dir $@)
	$(CC) -Ilib $(LIB_INC) -Ikernels $(GPU_INC) $(CFLAGS) $(WARN) $(DEPFLAGS) -c $< -o $@

$(GPU_NODE): $(GPU_NODE_OBJS) $(GPU_CU_OBJS) $(GPU_HOST_OBJS) $(GPU_LIB_OBJS) \
             $(PROFILE_SRCS:%.c=$(BUILD)/obj/%.o) \
             $(addprefix $(BUILD)/obj/lib/,base/fc_stages.o base/fc_input.o inventory/fc_inventory.o base/fc_hostlist.o base/fc_tap.o engine/fc_stats.o \
                                          base/fc_results.o engine/fc_judge.o engine/fc_peers.o engine/fc_point_rank.o engine/fc_calls.o)
	$(CC) -o $@ $^ $(GPU_LDFLAGS) $(GPU_CUDA_LIBS) -lfyaml -ljansson -lsodium -lxxhash -ldl \
	    -lpthread -lstdc++ -lm

# the shared generator compiled both ways (C and CUDA), compared on the host
$(GPU_TWINS): tests/gpu/pattern_twins.c $(BUILD)/obj/tests/gpu/pattern_twins_cuda.cu.o \
              $(BUILD)/obj/lib/base/fc_tap.o $(BUILD)/obj/lib/base/fc_status.o $(BUILD)/obj/kernels/fc_pattern_host.o
	@mkdir -p $(dir $@)
	$(CC) -Ilib $(LIB_INC) -Ikernels $(GPU_INC) $(CFLAGS) $(WARN) -o $@ $^ $(GPU_LDFLAGS) -lcudart -lstdc++ -lm

# the kernels' per-thread code run on the host over simulated grids
$(GPU_KTWINS): tests/gpu/kernel_twins.c $(BUILD)/obj/tests/gpu/kernel_twins_cuda.cu.o \
               $(addprefix $(BUILD)/obj/,lib/base/fc_tap.o lib/base/fc_status.o kernels/fc_pattern_host.o \
                                         kernels/fc_kernels_cpu.o) $(FC_CHECK_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -Ilib $(LIB_INC) -Ikernels $(CFLAGS) $(WARN) -o $@ $^ $(GPU_LDFLAGS) -lcudart -lxxhash -lstdc++ -lm

$(NVML_STANDIN): tests/standin/fc_nvml_standin.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -shared -o $@ $<

$(GPU_HEALTH_T): tests/gpu/gpu_health.c $(BUILD)/obj/lib/gpu/fc_nvml.o \
                 $(BUILD)/obj/lib/gpu/fc_gpu_health.o $(BUILD)/obj/lib/base/fc_tap.o \
                 $(BUILD)/obj/lib/base/fc_status.o | $(NVML_STANDIN)
	@mkdir -p $(dir $@)
	$(CC) -Ilib $(LIB_INC) $(CFLAGS) $(WARN) -o $@ $^ -ljansson -ldl

$(GPU_AGREE): tests/gpu/gpu_agree.c tests/standin/fc_comm_standin.c \
              $(BUILD)/obj/lib/gpu/fc_gpu_agree.o $(BUILD)/obj/lib/gpu/fc_gpu_wait.o \
              $(BUILD)/obj/lib/base/fc_log.o $(BUILD)/obj/lib/base/fc_status.o \
              $(addprefix $(BUILD)/obj/lib/,base/fc_ctl.o base/fc_ctl_frame.o base/fc_watchdog.o base/fc_alloc.o)
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) -Itests/standin $(CFLAGS) $(WARN) -o $@ $^ -lxxhash -lpthread

# ---- fuzz targets: the input parsers under AddressSanitizer and UBSan ------
FUZZ     := $(BUILD)/tests/fuzz_inputs.t
# (fc_stage_opts.c: the stages' sweep, which the report derives again;
# fc_judge.c, fc_peers.c, fc_confirm_rule.c: the rules it judges figures by;
# fc_pairs_schedule.c and its plans: the pairs stage's schedule, derived again)
FUZZ_SRCS := $(addprefix lib/,base/fc_input.c base/fc_ctl_frame.c base/fc_ctl_check.c inventory/fc_inventory.c base/fc_hostlist.c \
               inventory/fc_topology.c inventory/fc_topo_parse.c inventory/fc_topo_slurm.c inventory/fc_topo_ibnet.c inventory/fc_topo_k8s.c base/fc_stages.c base/fc_coll.c \
               base/fc_status.c base/fc_log.c base/fc_json.c \
               base/fc_alloc.c base/fc_results.c engine/fc_samples.c engine/fc_stats.c engine/fc_stats_compare.c engine/fc_sensitivity.c \
               stage/fc_stage_opts.c engine/fc_judge.c engine/fc_peers.c engine/fc_confirm_rule.c soak/fc_drift.c engine/fc_calls.c \
               counters/fc_counters.c counters/fc_counters_interval.c counters/fc_counters_check.c counters/fc_counters_ethtool.c stage/fc_contention_role.c \
               stage/fc_pairs_schedule.c stage/fc_pairs_sample.c stage/fc_pairs.c) \
             $(PROFILE_SRCS) kernels/fc_pattern_host.c $(wildcard reports/*.c) \
             tests/fuzz/fuzz_targets.c
FUZZ_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=undefined -Wno-format-truncation

# the same targets under clang's libFuzzer, where it is found (the
# objects compiled by clang through the MPI wrapper); tests/fuzz/libfuzzer.t
# runs each for a few seconds, and skips without it
FUZZ_CLANG ?= clang
HAVE_LIBFUZZER := $(shell printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' | \
                    $(FUZZ_CLANG) -x c -fsanitize=fuzzer - -o /dev/null 2> /dev/null && echo yes)
LIBFUZZER := $(if $(HAVE_LIBFUZZER),$(BUILD)/tests/fuzz_libfuzzer)
LF_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LF_OBJS  := $(patsubst %.c,$(BUILD)/libfuzzer/%.o,$(FUZZ_SRCS) tests/fuzz/fuzz_libfuzzer.c)

# the deterministic driver: where libFuzzer is found, on the libFuzzer
# build's own objects (their coverage hooks fall back to the sanitizer
# runtime's defaults without libFuzzer linked: one compile of the parsers,
# not two); elsewhere on objects of its own, by the MPI wrapper's compiler
ifeq ($(HAVE_LIBFUZZER),yes)
FUZZ_OBJS := $(patsubst %.c,$(BUILD)/libfuzzer/%.o,$(FUZZ_SRCS) tests/fuzz/fuzz_inputs.c)
FUZZ_LD   := OMPI_CC=$(FUZZ_CLANG) $(MPICC) $(LF_FLAGS)
else
FUZZ_OBJS := $(patsubst %.c,$(BUILD)/asan/%.o,$(FUZZ_SRCS) tests/fuzz/fuzz_inputs.c)
FUZZ_LD   := $(MPICC) $(FUZZ_FLAGS)
endif

$(BUILD)/asan/%.o: %.c $(DEPSTAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(FUZZ_FLAGS) $(WARN) $(DEPFLAGS) -c $< -o $@

$(FUZZ): $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_LD) -o $@ $^ $(LIBS)

# (the parsers' own warnings come from the main build; the fuzz programs'
# sources are compiled here alone, so with the warnings)
LF_WARN := -w
$(BUILD)/libfuzzer/tests/fuzz/%.o: LF_WARN := $(WARN)

$(BUILD)/libfuzzer/%.o: %.c $(DEPSTAMP)
	@mkdir -p $(dir $@)
	OMPI_CC=$(FUZZ_CLANG) $(MPICC) $(CPPFLAGS) $(LF_FLAGS) -fsanitize=fuzzer-no-link $(LF_WARN) $(DEPFLAGS) -c $< -o $@

$(BUILD)/tests/fuzz_libfuzzer: $(LF_OBJS)
	@mkdir -p $(dir $@)
	OMPI_CC=$(FUZZ_CLANG) $(MPICC) $(LF_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

# the tests in CHECK_JOBS parallel lanes, then those that judge times in
# pinned lanes, each on a CPU of its own (tests/lanes: a test's `lane:`
# line; CHECK_PINNED=N lanes, default one per CPU; CHECK_JOBS=1 runs them
# one by one, in this order)
CHECK_JOBS ?= 3
CHECK_PINNED ?=
CHECK_TESTS = $(UNIT) $(GPU_UNIT) $(FUZZ) tests/fuzz/libfuzzer.t $(wildcard tests/e2e/*.t)
check: all $(FUZZ) $(LIBFUZZER) check-layers
	tests/lanes -j $(CHECK_JOBS) $(if $(CHECK_PINNED),-p $(CHECK_PINNED)) $(CHECK_TESTS)

# the layering of docs/ARCHITECTURE.md on the built objects: no circle of
# files, no use of a higher layer (the table: tests/layers/layers.txt)
check-layers: all
	python3 tests/layers/check_layers.py --objdir $(BUILD)/obj

bench: all
	bench/run

# ---- install: the command, its stage programs, the GPU plugin, profiles ----
# PREFIX/bin/fabcert finds the rest relative to itself (lib/base/fc_results.h,
# fc_path_shipped): PREFIX/libexec/fabcert/ holds the stage programs, the
# probe and the retest (and the GPU plugin and fabcert-node-gpu where they
# were built), PREFIX/share/fabcert/thresholds/ the shipped profiles;
# PREFIX/bin/fabcert-k8s-launch, a Kubernetes job's launcher (`fabcert
# k8s`), runs the fabcert beside it. A copy on a shared filesystem
# (PREFIX=/shared/fabcert) runs on every node; the Dockerfile makes one.
PREFIX   ?= /usr/local
DESTDIR  ?=
INSTALL_BIN     := $(DESTDIR)$(PREFIX)/bin
INSTALL_LIBEXEC := $(DESTDIR)$(PREFIX)/libexec/fabcert
INSTALL_SHARE   := $(DESTDIR)$(PREFIX)/share/fabcert
install: $(BUILD)/fabcert $(SUITES) $(if $(HAVE_GPU),$(GPU_PLUGIN) $(GPU_NODE))
	install -d $(INSTALL_BIN) $(INSTALL_LIBEXEC) $(INSTALL_SHARE)/thresholds $(INSTALL_SHARE)/doc
	install -m 755 $(BUILD)/fabcert $(INSTALL_BIN)/fabcert
	install -m 755 runners/fabcert-k8s-launch $(INSTALL_BIN)/fabcert-k8s-launch
	install -m 755 $(SUITES) $(INSTALL_LIBEXEC)/
	$(if $(HAVE_GPU),install -m 755 $(GPU_PLUGIN) $(GPU_NODE) $(INSTALL_LIBEXEC)/)
	install -m 644 thresholds/*.yaml $(INSTALL_SHARE)/thresholds/
	install -d $(INSTALL_SHARE)/doc/docs/bench
	install -m 644 README.md $(INSTALL_SHARE)/doc/
	install -m 644 docs/*.md $(INSTALL_SHARE)/doc/docs/
	install -m 644 docs/bench/* $(INSTALL_SHARE)/doc/docs/bench/

deps:
	bash .ci/install-deps

run: all
	$(BUILD)/fabcert run

clean:
	rm -rf $(BUILD)

# the headers each object was compiled from (DEPFLAGS above)
-include $(shell find $(BUILD) -name '*.d' 2> /dev/null)
