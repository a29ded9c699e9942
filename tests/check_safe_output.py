"""check_safe_output.py [--tabs] [--json] FILE... — fails when an output of
bpfspec could act on a terminal or mislead a reader.

Each FILE must be valid UTF-8 and hold no control byte but newline (and
tab with --tabs), no DEL, no C1 control (U+0080-U+009F), no bidirectional
override or isolate (U+202A-U+202E, U+2066-U+2069), no directional mark
(U+200E, U+200F, U+061C), no zero-width or invisible format character
(U+200B-U+200D, U+2060-U+2064, U+FEFF), no line or paragraph separator
(U+2028, U+2029).  With --json each FILE is also one JSON document (or
one per line) that parses strictly.  Prints one line per problem (file,
byte offset, what) and exits 1 when there is any.
"""
import json
import sys

HIDDEN = set(range(0x80, 0xA0)) | set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) \
    | {0x200E, 0x200F, 0x061C, 0x2028, 0x2029, 0xFEFF} | set(range(0x200B, 0x200E)) \
    | set(range(0x2060, 0x2065))


def problems(path, data, tabs, as_json):
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        yield f"{path}: byte {e.start}: not valid UTF-8 ({data[e.start:e.start + 4]!r})"
        return
    offset = 0
    for ch in text:
        cp = ord(ch)
        if (cp < 0x20 and ch != "\n" and not (tabs and ch == "\t")) or cp == 0x7F:
            yield f"{path}: byte {offset}: raw control byte 0x{cp:02x}"
        elif cp in HIDDEN:
            yield f"{path}: byte {offset}: raw U+{cp:04X}"
        offset += len(ch.encode("utf-8"))
    if as_json:
        docs = [text]
        if text.count("\n") > 1 and not text.lstrip().startswith("{\n"):
            docs = [line for line in text.split("\n") if line]
        for i, doc in enumerate(docs):
            try:
                json.loads(doc)
            except ValueError as e:
                yield f"{path}: JSON document {i + 1}: {e}"


def main():
    args = sys.argv[1:]
    tabs = "--tabs" in args
    as_json = "--json" in args
    files = [a for a in args if not a.startswith("--")]
    if not files:
        print(__doc__.strip().split("\n")[0], file=sys.stderr)
        return 2
    bad = 0
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        for p in problems(path, data, tabs, as_json):
            print(p)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
