# OpenBench and other tools build engines with `make EXE=<path>`: the binary ends up there.
EXE ?= zwischen

.PHONY: all clean

all:
	cargo build --release
	cp target/release/zwischen $(EXE)

clean:
	cargo clean
