# fabcert build. `make` builds everything whose dependencies are present
# (parts whose toolkits are absent are left out with one line saying so);
# `make check` runs every test through prove; `make bench` prints figures;
# `make run` is the quick-start certification of this machine.

BUILD    ?= build
MPICC    ?= mpicc
CFLAGS   ?= -O3 -g
REVISION := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
CPPFLAGS += -Ilib -Ikernels -Ireports -Irunners -Itests/lib -DFC_GIT_REVISION='"$(REVISION)"'
WARN     := -Wall -Wextra -Wshadow -Wno-unused-parameter
LIBS     := -lfyaml -ljansson -lxxhash -lsodium -lm
PROVE    ?= prove

LIB_SRCS := $(wildcard lib/*.c) $(wildcard kernels/*.c)
LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
SUITES   := $(patsubst suites/%.c,$(BUILD)/suites/%,$(wildcard suites/*.c))
UNIT     := $(patsubst tests/unit/%.c,$(BUILD)/tests/%.t,$(wildcard tests/unit/*.c))
BENCH    := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))
# the fabcert command: runners/ (plan, launch) and reports/ (verdicts)
CMD_SRCS := $(wildcard runners/*.c) $(wildcard reports/*.c)
CMD_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(CMD_SRCS))

.PHONY: all check bench run deps clean
.SECONDARY:
all: $(BUILD)/libfabcert.a $(SUITES) $(BUILD)/fabcert $(UNIT) $(BENCH)

$(BUILD)/obj/%.o: %.c $(wildcard lib/*.h kernels/*.h reports/*.h runners/*.h tests/lib/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(CFLAGS) $(WARN) -c $< -o $@

$(BUILD)/libfabcert.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	ar rcs $@ $^

$(BUILD)/suites/%: $(BUILD)/obj/suites/%.o $(BUILD)/libfabcert.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/fabcert: $(CMD_OBJS) $(BUILD)/libfabcert.a
	$(MPICC) $(CFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/tests/%.t: $(BUILD)/obj/tests/unit/%.o $(BUILD)/libfabcert.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(BUILD)/libfabcert.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $^ $(LIBS)

check: all
	$(PROVE) --exec '' $(UNIT) tests/e2e/*.t

bench: all
	bench/run

deps:
	bash .ci/install-deps

run: all
	$(BUILD)/fabcert run

clean:
	rm -rf $(BUILD)
