# songbox: the two commands of the README, and the benchmarks.
# The toolchain: on PATH, else where the Swift machines keep it.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
SONGBOX_DB ?= $(CURDIR)/.build/demo/library.db
# Warnings are errors where the project is checked (make test, CI), not in Package.swift: a
# newer compiler's new warning must not stop a user's build. (The C shim's files say so themselves.)
STRICT = -Xswiftc -warnings-as-errors

# The message catalogs (docs/translations.md): po/LANG.po compiled by msgfmt to
# LANG/LC_MESSAGES/songbox.mo under .build/share/locale, which a songbox in .build/<triple>/debug
# or release finds two folders up; `make install` puts them in $(PREFIX)/share/locale.
LOCALEDIR = .build/share/locale
CATALOGS = $(patsubst po/%.po,$(LOCALEDIR)/%/LC_MESSAGES/songbox.mo,$(wildcard po/*.po))
# Where `make install` puts songbox: your own ~/.local by default (~/.local/bin is on PATH on
# Debian and Raspberry Pi OS once it exists); `sudo make install PREFIX=/usr/local` for everyone.
PREFIX ?= $(HOME)/.local
# What it installs: the release build (`make release`).
BINARY ?= .build/release/songbox

.PHONY: demo test bench build release clean locale install pi pi-check

## demo: install what is missing, build, scan the bundled example library, list it, play some
## of it (to the null output, as fast as possible: the demo needs no sound card).
demo:
	@scripts/install-deps.sh
	$(SWIFT) build --product songbox
	@$(MAKE) --no-print-directory locale
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
	@$(MAKE) --no-print-directory locale
	@# The tests' temporary folders go in one folder of this run's own, removed after it; open
	@# to all, as /tmp is, for the servers the tests start that drop to `nobody` (Icecast).
	@scratch=$$(mktemp -d "$${TMPDIR:-/tmp}/songbox-tests.XXXXXX") && chmod 755 "$$scratch" && trap 'rm -rf "$$scratch"' EXIT && \
	  echo "TMPDIR=$$scratch $(SWIFT) test --skip-build" && TMPDIR=$$scratch $(SWIFT) test --skip-build

## bench: compare with MPD, lua5.4, mpg123, flac, oggdec, opusdec, ffmpeg, Essentia and librosa and print the numbers (see docs/benchmarks.md).
bench:
	@scripts/install-deps.sh --bench
	bench/run
	bench/run --format flac --n 5000
	bench/lua-run
	bench/player-run
	bench/decoders-run
	@scripts/install-deps.sh --test
	bench/web-run
	bench/daemon-run
	bench/analysis-run
	bench/moods-run
	bench/mpd-run
	bench/requests-run

build: locale
	$(SWIFT) build

release: locale
	$(SWIFT) build -c release --static-swift-stdlib --product songbox

## locale: compile the message catalogs (msgfmt, from Debian's gettext).
locale: $(CATALOGS)

$(LOCALEDIR)/%/LC_MESSAGES/songbox.mo: po/%.po
	@mkdir -p $(dir $@)
	msgfmt --check -o $@.tmp $< && mv $@.tmp $@

## install: what `make release` built: the binary to $(PREFIX)/bin (the bundled plugins and the
## alarm tone are inside it), the catalogs to $(PREFIX)/share/locale, and completions for bash,
## zsh and fish (written by the binary itself). It builds nothing, so `sudo make install` writes
## nothing in .build.
install:
	@test -x $(BINARY) || { echo "make release first" >&2; exit 1; }
	install -D -m 755 $(BINARY) $(DESTDIR)$(PREFIX)/bin/songbox
	for mo in $(CATALOGS); do test -f $$mo || { echo "$$mo is missing: make locale (or make release) first" >&2; exit 1; }; \
	    install -D -m 644 $$mo $(DESTDIR)$(PREFIX)/share/locale/$${mo#$(LOCALEDIR)/}; done
	mkdir -p $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	    $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	$(BINARY) --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/songbox
	$(BINARY) --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_songbox
	$(BINARY) --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/songbox.fish
	@echo "installed $(DESTDIR)$(PREFIX)/bin/songbox"

## pi: songbox for a 64-bit Raspberry Pi (aarch64, Debian 13 trixie / Raspberry Pi OS), cross-compiled
## here from Debian's packages (sid's swiftlang, trixie's arm64 libraries) into .build/pi/songbox, and
## how long it took; the toolchain, the arm64 sysroot and the build folder are kept in $(PI_BUILD), so a
## second run is quick. As root, or through sudo. See docs/raspberry-pi.md.
PI_BUILD ?= $(abspath $(CURDIR)/../pi-build)
pi:
	PI_BUILD=$(PI_BUILD) scripts/make-pi.sh

## pi-check: that binary under qemu-aarch64, on the trixie packages a Pi installs, beside the x86_64
## build: scan, ls, the PCM it plays, analyze, a Lua script, the daemon with mpc, its memory
## (docs/raspberry-pi.md says when it runs, and its last result).
pi-check:
	PI_BUILD=$(PI_BUILD) scripts/pi-check.sh

clean:
	rm -rf .build
