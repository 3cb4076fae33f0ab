#!/usr/bin/env python3
"""Lists the messages songbox's Swift sources say to people, as a gettext template (.pot).

xgettext does not read Swift, and songbox's messages are string literals with interpolations
(`"no track with id \\(id)"`), which become msgids with %s (`no track with id %s`; a literal % is
%%), as `Message` makes them at run time. A literal is a message where the code says so:

  tr("...")  complain("...")  Message("...")  SongboxError(.code, "...")  SongboxError.query("...")
  ScheduleError("...")  SpeechError("...")  .invalid("...") (an output)  Invalid(message: "...") (an MPD address)
  hint: "..."  said: "..."  one: / other: "..."  tr(count: n, "one", "other")  `x: Message = "..."`
  the other branch of a ternary or ?? after one of those, and `case ...: "..."`, `return "..."`
  and a closure's `in "..."` in a function or a `switch` whose type is Message.

Usage: scripts/extract-messages.py [SOURCES_DIR] > po/songbox.pot
       scripts/extract-messages.py --json [SOURCES_DIR]   (for the tests)
See docs/translations.md.
"""
import json
import os
import re
import sys

TRIGGERS = re.compile(
    r"(?:\btr\(|\bsay\(|\bcomplain\(|\bMessage\(|\bDaemonError\(|\bScheduleError\(|\bSpeechError\(|\.invalid\(|\bInvalid\(message:\s*|SongboxError\(\.\w+,\s*|SongboxError\.query\(|\bhint:\s*|\bone:\s*|"
    r"\bother:\s*|\bsaid:\s*|:\s*Message\??\s*=\s*|\btr\(count:[^,]+,\s*|\bhint:[^\"\n]*\{\s*)$")
# After a message: `: "..."` (a ternary's other branch), `?? "..."`, or a plural's second form.
FOLLOWERS = re.compile(r"^(?:\s*\}?\s*(?:\?\?|:|,|\?)\s*|\s*:\s*[^\"]*?\?\s*|\s*,\s*other:\s*)$")
TERNARY_AFTER_TRIGGER = re.compile(
    r"(?:\btr\(|\bcomplain\(|\bhint:|SongboxError\(\.\w+,|SongboxError\.query\(|:\s*Message\??\s*=)[^\"]*\?\s*$")
MESSAGE_SCOPE = re.compile(r"(?:->\s*Message\??\s*\{|:\s*Message\s*=\s*switch\b[^{]*\{)$")
CASE_BRANCH = re.compile(r"(?:\bcase\b[^\"]*:|\breturn|\bin|\breduce\()\s*$")


def tokens(text):
    """Yields ("{" or "}", position) for each brace and ("literal", start, end, msgid, line) for each
    string literal, outside comments."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                return
            continue
        if text.startswith("/*", i):
            i = text.find("*/", i) + 2
            continue
        if text.startswith('"""', i):
            start = i
            msgid, i = read_multiline(text, i + 3)
            yield "literal", start, i, msgid, text.count("\n", 0, start) + 1
            continue
        if c == '"':
            start = i
            msgid, i = read_literal(text, i + 1)
            yield "literal", start, i, msgid, text.count("\n", 0, start) + 1
            continue
        if c in "{}":
            yield c, i
        i += 1


def read_literal(text, i, multiline=False):
    """The msgid of the literal whose body starts at i, and the index after its closing quote
    (`multiline`: the body is all of `text`, quotes included)."""
    out = []
    while i < len(text):
        c = text[i]
        if c == '"' and not multiline:
            return "".join(out), i + 1
        if c == "\\":
            nxt = text[i + 1]
            if nxt == "(":
                i = skip_interpolation(text, i + 2)
                out.append("%s")
                continue
            if nxt == "u":
                close = text.index("}", i)
                out.append(chr(int(text[i + 3:close], 16)))
                i = close + 1
                continue
            out.append({"n": "\n", "t": "\t", "0": "\0", "r": "\r"}.get(nxt, nxt))
            i += 2
            continue
        out.append("%%" if c == "%" else c)
        i += 1
    if multiline:
        return "".join(out), i
    raise ValueError("unterminated literal")


def read_multiline(text, i):
    """The msgid of the multi-line literal whose opening \"\"\" ends at i, and the index after its
    closing one: the lines without the closing delimiter's indentation, a line ending in a
    backslash joined to the next, as Swift reads it."""
    body_start = text.index("\n", i) + 1
    end = text.index('"""', body_start)
    close_line = text.rfind("\n", 0, end) + 1
    indent = len(text[close_line:end])
    lines = [line[indent:] for line in text[body_start:close_line].split("\n")[:-1]]
    raw = ""
    for line in lines:
        raw += line[:-1] if line.endswith("\\") and not line.endswith("\\\\") else line + "\n"
    msgid, _ = read_literal(raw.removesuffix("\n"), 0, multiline=True)
    return msgid, end + 3


def skip_interpolation(text, i):
    depth = 1
    while depth:
        c = text[i]
        if c == '"':
            _, i = read_literal(text, i + 1)
            continue
        depth += {"(": 1, ")": -1}.get(c, 0)
        i += 1
    return i


def messages(text):
    """(msgid, msgid_plural or None, line) of each message in one file's text."""
    found = []
    scopes = []  # brace depths at which a Message-typed body opened
    depth = 0
    previous_end, previous_was_message, pending_plural = 0, False, None
    for token in tokens(text):
        if token[0] == "{":
            depth += 1
            if MESSAGE_SCOPE.search(text[max(0, token[1] - 200):token[1] + 1]):
                scopes.append(depth)
            continue
        if token[0] == "}":
            if scopes and scopes[-1] == depth:
                scopes.pop()
            depth -= 1
            continue
        _, start, end, msgid, line = token
        line_start = text.rfind("\n", 0, start) + 1
        before = text[line_start:start]
        statement = before
        if re.match(r"^\s*(?:\?\?|:|\?|\+)", before):  # a continuation line: read the one above too
            above = text.rfind("\n", 0, line_start - 1) + 1
            statement = text[above:start]
        gap = text[previous_end:start]
        is_message = bool(
            TRIGGERS.search(before) or TERNARY_AFTER_TRIGGER.search(strip_strings(statement))
            or (previous_was_message and FOLLOWERS.match(gap))
            or (scopes and CASE_BRANCH.search(before)))
        if pending_plural is not None and is_message and re.match(r"^\s*,\s*(?:other:\s*)?$", gap):
            found[pending_plural] = (found[pending_plural][0], msgid, found[pending_plural][2])
            pending_plural = None
        elif is_message:
            found.append((msgid, None, line))
            pending_plural = len(found) - 1 if re.search(r"(?:\btr\(count:[^,]+,|\bone:)\s*$", before) else None
        else:
            pending_plural = None
        previous_end, previous_was_message = end, is_message
    return found


def strip_strings(text):
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)


def extract(root):
    entries = {}
    for folder, _, files in sorted(os.walk(root)):
        if "SongboxTestSupport" in folder:
            continue
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as file:
                for msgid, plural, line in messages(file.read()):
                    # A key with no words (`%s`, `%s: %s`) is layout, not a sentence.
                    if msgid and re.search(r"[A-Za-z]", msgid.replace("%s", "")):
                        entry = entries.setdefault((msgid, plural), [])
                        entry.append(f"{os.path.relpath(path, os.path.dirname(root))}:{line}")
    return entries


def po_string(text):
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def main():
    arguments = [a for a in sys.argv[1:] if a != "--json"]
    root = arguments[0] if arguments else os.path.join(os.path.dirname(__file__), "..", "Sources")
    entries = extract(os.path.normpath(root))
    if "--json" in sys.argv:
        json.dump([{"msgid": k[0], "msgid_plural": k[1], "where": v} for k, v in entries.items()], sys.stdout,
                  ensure_ascii=False, indent=1)
        return
    print('msgid ""\nmsgstr ""\n"Project-Id-Version: songbox\\n"\n"MIME-Version: 1.0\\n"\n'
          '"Content-Type: text/plain; charset=UTF-8\\n"\n"Content-Transfer-Encoding: 8bit\\n"\n')
    for (msgid, plural), where in entries.items():
        # Files without line numbers (xgettext's --add-location=file): an edit elsewhere in a
        # file does not touch every catalog.
        print("#: " + " ".join(dict.fromkeys(place.rsplit(":", 1)[0] for place in where)))
        if "%" in msgid or (plural and "%" in plural):
            print("#, c-format")
        print("msgid " + po_string(msgid))
        if plural is None:
            print('msgstr ""\n')
        else:
            print("msgid_plural " + po_string(plural))
            print('msgstr[0] ""\nmsgstr[1] ""\n')


if __name__ == "__main__":
    main()
