"""Theano's effective configuration, run by the interpreter under test (Python 2.7 and 3.6+,
stdlib only).

    python theano_config.py [--exec CODE]

Imports theano with the environment as it is (THEANORC, THEANO_FLAGS, ~/.theanorc),
optionally runs CODE (``import myproject``: what it assigns to ``theano.config`` is
reported as an assignment), and prints one JSON object on a line starting with
RESULT_MARK: every option's value, THEANO_FLAGS as Theano splits it, and the config
files Theano reads with their entries and line numbers. A failure is data (exception
type, message, and the option or file line it concerns), never a crash.
"""
from __future__ import print_function

import ast
import json
import os
import shlex
import sys
import traceback

if __package__:  # imported by gpuforge on the host
    from gpuforge.inside import theanorc_lines
else:  # run as a script by the interpreter being examined: its sibling, whatever sys.path holds
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import theanorc_lines

RESULT_MARK = "GPUFORGE_RESULT "


def error_data(exc):
    tb = traceback.format_exc().strip().splitlines()
    data = {"type": type(exc).__name__, "message": str(exc)[-4000:], "traceback_tail": tb[-12:]}
    # configparser's own errors say where: MissingSectionHeaderError, ParsingError,
    # DuplicateOptionError, DuplicateSectionError.
    source = getattr(exc, "source", None) or getattr(exc, "filename", None)
    lineno = getattr(exc, "lineno", None)
    errors = getattr(exc, "errors", None)
    if lineno is None and errors:
        lineno = errors[0][0]
    if source is not None and lineno is not None:
        data["file"], data["line"] = str(source), int(lineno)
        data["detail"] = parse_error_detail(exc)
    # A bad value: the innermost frame that handles one config option names it.
    key = None
    tb_ = sys.exc_info()[2]
    while tb_ is not None:
        local = tb_.tb_frame.f_locals
        for candidate in (local.get("configparam"), local.get("self")):
            name = getattr(candidate, "fullname", None)
            if isinstance(name, str):
                key = name
        tb_ = tb_.tb_next
    if key is not None:
        data["option"] = key
    return data


def parse_error_detail(exc):
    """configparser's error in one short sentence."""
    kind = type(exc).__name__
    if kind == "MissingSectionHeaderError":
        return "%r comes before any [section] header" % exc.line.strip()
    if kind == "ParsingError":
        line = exc.errors[0][1]
        try:  # configparser stores repr(line)
            line = ast.literal_eval(line)
        except (ValueError, SyntaxError):
            pass
        return "neither [section] nor `key = value`: %r" % line.strip()
    if kind == "DuplicateOptionError":
        return "[%s] %s is set twice in this file (Python 3 refuses that)" % (exc.section, exc.option)
    if kind == "DuplicateSectionError":
        return "section [%s] appears twice in this file (Python 3 refuses that)" % exc.section
    return "%s: %s" % (kind, " ".join(str(exc).split()))


def split_flags(text):
    """THEANO_FLAGS as Theano splits it: comma-separated key=value, later keys win."""
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace = ","
    lexer.whitespace_split = True
    pairs = []
    for item in lexer:
        key, sep, value = item.strip().partition("=")
        if sep:
            pairs.append([key, value])
    return pairs


def theano_config_files():
    """The files Theano reads, in its order (later files win)."""
    module = sys.modules.get("theano.configparser")
    if module is not None and hasattr(module, "config_files"):
        return list(module.config_files)
    files = [os.path.expanduser(s) for s in os.getenv("THEANORC", "~/.theanorc").split(os.pathsep)]
    if os.getenv("THEANORC") is None and sys.platform == "win32":
        files.append(os.path.expanduser("~/.theanorc.txt"))
    return files


def scan(path):
    """A config file's entries the way Theano's ConfigParser reads them (theanorc_lines: option
    names lower-cased, continuation lines joined), or None when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            lines = fh.read().decode("utf-8", "replace").splitlines()
    except (IOError, OSError):
        return None
    reading = theanorc_lines.read_lines(lines, sys.version_info[:2])
    return [{"section": line.section, "option": line.option, "key": line.key, "value": line.value,
             "line": line.number} for line in reading.options()]


def options():
    from theano.configparser import _config_var_list
    values = {}
    for param in _config_var_list:
        try:
            value = param.__get__(True, None)
            values[param.fullname] = {"value": str(value), "is_default": bool(param.is_default)}
        except Exception as exc:  # a lazily computed default can fail: data, not a crash
            values[param.fullname] = {"value": None, "error": "%s: %s" % (type(exc).__name__, exc)}
    return values


def probe(code):
    result = {"python": sys.version.split()[0], "executable": sys.executable,
              "platform": sys.platform, "theanorc_env": os.environ.get("THEANORC"),
              "theano_flags": os.environ.get("THEANO_FLAGS", ""), "flags": [],
              "files": [], "options": {}, "assigned": [], "error": None}
    try:
        result["flags"] = split_flags(result["theano_flags"])
    except ValueError as exc:  # e.g. an unclosed quote: Theano fails the same way
        result["error"] = dict(error_data(exc), file="THEANO_FLAGS")
    try:
        import theano
        result["theano"] = theano.__version__
        result["theano_file"] = os.path.dirname(theano.__file__)
        result["options"] = options()
    except BaseException as exc:  # noqa: B036 - SystemExit from a broken install is data too
        result["error"] = dict(error_data(exc), phase="import")
    if code and result["error"] is None:
        try:
            exec(code, {"__name__": "__gpuforge_exec__", "theano": theano})
            after = options()
            result["assigned"] = sorted(k for k, v in after.items()
                                        if v.get("value") != result["options"].get(k, {}).get("value"))
            result["options"] = after
        except BaseException as exc:  # noqa: B036
            result["error"] = dict(error_data(exc), phase="exec")
    for path in theano_config_files():
        entries = scan(path)
        result["files"].append({"path": path, "exists": entries is not None,
                                "entries": entries or []})
    return result


def main(argv):
    code = None
    if argv[:1] == ["--exec"] and len(argv) == 2:
        code = argv[1]
    elif argv:
        print("usage: theano_config.py [--exec CODE]", file=sys.stderr)
        return 2
    result = probe(code)
    sys.stdout.write("\n" + RESULT_MARK + json.dumps(result, default=repr) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
