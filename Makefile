# songbox: the two commands of the README, and the benchmarks.
# The toolchain: on PATH, else where the Swift machines keep it.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
SONGBOX_DB ?= $(CURDIR)/.build/demo/library.db
# Warnings are errors where the project is checked (make test, CI), not in Package.swift: a
# newer compiler's new warning must not stop a user's build. (The C shim's files say so themselves.)
STRICT = -Xswiftc -warnings-as-errors

.PHONY: demo test bench build release clean

## demo: install what is missing, build, scan the bundled example library, list it, play some
## of it (to the null output, as fast as possible: the demo needs no sound card).
demo:
	@scripts/install-deps.sh
	$(SWIFT) build --product songbox
	@mkdir -p $(dir $(SONGBOX_DB))
	.build/debug/songbox --db $(SONGBOX_DB) scan examples/music
	.build/debug/songbox --db $(SONGBOX_DB) ls
	.build/debug/songbox --db $(SONGBOX_DB) ls 'title:אהבה'
	.build/debug/songbox --db $(SONGBOX_DB) stats
	.build/debug/songbox --db $(SONGBOX_DB) play --output null --fast 'artist:"Mabel Grey"' sort:year
	.build/debug/songbox --db $(SONGBOX_DB) run --output null --fast examples/lua/player-tour.lua
	.build/debug/songbox --db $(SONGBOX_DB) run examples/lua/smart-rules.lua
	.build/debug/songbox --db $(SONGBOX_DB) playlist show "Best of each artist"
	.build/debug/songbox --db $(SONGBOX_DB) analyze
	.build/debug/songbox --db $(SONGBOX_DB) run --output null --fast examples/mood-playlist.lua happy 45

## test: install what is missing, build (a warning is an error here, in CI), run every test.
test:
	@scripts/install-deps.sh --test
	$(SWIFT) build --build-tests $(STRICT)
	$(SWIFT) test --skip-build

## bench: compare with MPD, lua5.4, mpg123, Essentia and librosa and print the numbers (see docs/benchmarks.md).
bench:
	@scripts/install-deps.sh --bench
	bench/run
	bench/lua-run
	bench/player-run
	bench/daemon-run
	bench/analysis-run
	bench/moods-run
	bench/mpd-run

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release --static-swift-stdlib --product songbox

clean:
	rm -rf .build
