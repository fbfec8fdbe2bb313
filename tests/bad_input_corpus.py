"""The bad-input corpus: legal but hostile files one repository can hold, and what ingest must
make of each. Built with dulwich because a working tree cannot hold several of them (a file name
that is not UTF-8 on some file systems, an 8 KB path, a tree entry named ``..``).

Every file here either indexes or is skipped and counted under its reason; none may stop the
branch. ``EXPECTED_SKIPPED`` is the ingest summary's ``skipped`` for the corpus.
"""

from __future__ import annotations

from gitrepo import Symlink

# Deep enough to break a recursive tree walk (Python's default recursion limit is 1,000).
_NESTING = 3_000
_LONG_NAME = "x" * 9_000  # past Neo4j's ~8 KB index key
_INCOMPRESSIBLE_DIR = "".join(f"{i:04x}{(i * 7919) % 65521:04x}" for i in range(366))  # 2,928 bytes

BAD_INPUT_FILES: dict[str | bytes, bytes | str | Symlink] = {
    # Plain source that must index beside the bad files.
    "ok.py": "def fine():\n    return helper()\n\n\ndef helper():\n    return 1\n",
    "empty.py": b"",
    "only_comments.py": "# nothing here\n",
    "broken.py": "def broken(:\n    pass\n\ndef after_broken():\n    pass\n",
    "conflict.py": "def c():\n<<<<<<< HEAD\n    return 1\n=======\n    return 2\n>>>>>>> other\n",
    # Line breaks other than \n must not shift the lines retrieval shows.
    "formfeed.py": "def before():\n    pass\n\f\ndef after_formfeed():\n    return 'ff'\n",
    "linesep.py": "X = '\u2028'\n\n\ndef after_linesep():\n    return 'ls'\n",
    "crlf.py": b"def crlf_one():\r\n    return 1\r\n\r\ndef crlf_two():\r\n    return 2\r\n",
    "minified.py": "def minified(): return [" + ",".join(str(i) for i in range(40_000)) + "]\n",
    "nested_expression.py": "value = " + "(" * _NESTING + "1" + ")" * _NESTING + "\n",
    "nested_lists.py": "value = " + "[" * _NESTING + "]" * _NESTING + "\n",
    "nested_defs.py": "".join("    " * i + f"def level{i}():\n" for i in range(60)) + "    " * 60 + "pass\n",
    # Skipped, each under its reason.
    "binary.py": b"\x00\x01\x02binary",
    "latin1.py": b"name = 'caf\xe9'\n",
    "huge.py": b"x = 1\n" * 200_000,
    "lfs.py": b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n",
    "escape.py": Symlink("../../../etc/passwd"),
    "long_identifier.py": f"def {_LONG_NAME}():\n    pass\n",
    "long_import.py": f"import {'a.' * 400}b\n",
    ("d" * 250 + "/") * 33 + "long_path.py": "def deep():\n    pass\n",  # 8.3 KB
    _INCOMPRESSIBLE_DIR + "/incompressible.py": "def incompressible():\n    pass\n",
    b"caf\xe9_latin1_name.py": b"def latin1_name():\n    pass\n",
    "../passwd.py": "def outside():\n    pass\n",
    "a/../../dotdot.py": "def dotdot():\n    pass\n",
}

EXPECTED_SKIPPED = {
    "binary": 1,
    "identifier_too_long": 2,
    "lfs_pointer": 1,
    "not_utf8": 1,
    "path_not_utf8": 1,
    "path_too_long": 2,
    "path_unsafe": 2,
    "symlink": 1,
    "too_large": 1,
}
EXPECTED_INDEXED_FILES = 12
# Functions whose text context must show exactly (the line after the odd line break).
EXPECTED_TEXT = {
    "after_formfeed": "def after_formfeed():\n    return 'ff'",
    "after_linesep": "def after_linesep():\n    return 'ls'",
    "crlf_two": "def crlf_two():\n    return 2",
}
