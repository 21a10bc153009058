"""A Theano config file (.theanorc) read line by line by the rules of Python's configparser.

Theano 1.0 reads its config files with the standard library's ConfigParser, so these are the
rules that decide what a .theanorc means: this module is gpuforge's one reading of them, used
by the probe and the Theano configuration helper (run by the interpreter being examined:
Python 2.7 and 3.6+, standard library only) and by the host (`gpuforge doctor`, `--fix`,
`theanorc migrate`). Each line is classified as configparser classifies it, with its number,
so every setting can be named by file and line and edited in place.

The rules follow the configparser of the Python that reads the file (``version``):
- Python 3 (RawConfigParser._read): ``#``/``;`` lines are comments wherever they are
  indented; a line indented deeper than the option above continues its value, and a blank
  line inside a value is part of it; a section header is ``[name]`` at the start of the
  line, whatever follows it (``[global] # my GPU box``); a section or an option twice in
  one file is an error (strict), as is an option before any section or a line that is
  neither;
- Python 3.10 and later read a header up to its last ``]`` (3.9 and earlier: its first);
- Python 2 (ConfigParser._read): comments only in the first column (and ``rem`` lines), any
  line starting with a space continues the value above, `` ;`` after a space ends a value,
  ``""`` is the empty value, and a repeated section or option is no error (the last wins).
"""

import re

PY3_OPTION_RE = re.compile(r"(?P<option>.*?)\s*(?P<vi>[=:])\s*(?P<value>.*)$")
PY2_OPTION_RE = re.compile(r"(?P<option>[^:=\s][^:=]*)\s*(?P<vi>[:=])\s*(?P<value>.*)$")
HEADER_TO_FIRST = re.compile(r"\[(?P<header>[^]]+)\]")  # Python 2 ... 3.9
HEADER_TO_LAST = re.compile(r"\[(?P<header>.+)\]")  # Python 3.10 and later
NON_SPACE = re.compile(r"\S")
COMMENT_PREFIXES = ("#", ";")

# What a line is: a blank line, a comment, a [section] header, an option's first line, or
# a continuation of the option above.
BLANK, COMMENT, HEADER, OPTION, CONTINUATION = "blank", "comment", "header", "option", "continuation"


class Line(object):
    """One line of the file, as configparser reads it."""

    __slots__ = ("number", "text", "kind", "section", "option", "key", "value")

    def __init__(self, number, text, kind, section=None, option=None, key=None, value=None):
        self.number = number
        self.text = text
        self.kind = kind
        self.section = section  # the section it belongs to (None: before the first header)
        self.option = option  # the option it sets or continues, lower-cased as configparser does
        self.key = key  # the option's name as written (an option line)
        self.value = value  # the whole value, continuation lines joined (an option line)


class Reading(object):
    """A file's lines, and the first problem that makes configparser refuse the file."""

    def __init__(self, lines, error):
        self.lines = lines
        self.error = error  # None, or {"line": N, "message": ...}

    def options(self):
        """The option lines in file order (each with its whole value)."""
        return [line for line in self.lines if line.kind == OPTION]

    def settings(self):
        """{(section, option): the option line}: what Theano reads (the last of a repeated key,
        as Python 2's ConfigParser keeps it)."""
        found = {}
        for line in self.options():
            found[(line.section, line.option)] = line
        return found


def _error(number, message):
    return {"line": number, "message": message}


def read(text, version=(3, 11)):
    """Read ``text`` (a whole .theanorc) by the rules of configparser in Python ``version``."""
    return read_lines(text.splitlines(), version)


def read_lines(texts, version=(3, 11)):
    """Classify each line of a .theanorc (a list of its lines, without line ends)."""
    if tuple(version[:1]) == (2,):
        return _read_py2(texts)
    return _read_py3(texts, HEADER_TO_LAST if tuple(version[:2]) >= (3, 10) else HEADER_TO_FIRST)


def _before_header(number, stripped):
    return _error(number, "`%s` comes before any [section] header" % stripped[:80])


def _not_a_line(number, stripped):
    return _error(number, "neither [section], `key = value` nor a comment: %r" % stripped[:80])


def _read_py3(texts, header_re):
    lines, seen = [], {}  # section or (section, option) -> the line that first set it
    section, option_line, indent_level = None, None, 0
    parse_error = None  # configparser goes on after a line it cannot parse and raises at the end
    for number, text in enumerate(texts, 1):
        stripped = text.strip()
        comment = stripped.startswith(COMMENT_PREFIXES)
        if comment or not stripped:
            in_value = option_line is not None and not comment
            if in_value:  # a blank line inside a value is part of it (empty_lines_in_values)
                option_line.value += "\n"
            kind = COMMENT if comment else BLANK
            lines.append(Line(number, text, kind, section, option_line.option if in_value else None))
            continue
        first = NON_SPACE.search(text)
        indent = first.start() if first else 0
        if option_line is not None and indent > indent_level:
            option_line.value += "\n" + stripped
            lines.append(Line(number, text, CONTINUATION, section, option_line.option))
            continue
        indent_level = indent
        header = header_re.match(stripped)
        if header:
            section = header.group("header")
            if section in seen and section != "DEFAULT":
                return Reading(lines, _error(number, "section [%s] repeats line %d (Python 3's configparser "
                                                     "refuses the file)" % (section, seen[section])))
            seen[section] = number
            option_line = None
            lines.append(Line(number, text, HEADER, section))
            continue
        if section is None:
            return Reading(lines, _before_header(number, stripped))
        match = PY3_OPTION_RE.match(stripped)
        if match is None or not match.group("option"):
            parse_error = parse_error or _not_a_line(number, stripped)
            lines.append(Line(number, text, COMMENT, section))  # ignored by a reader that goes on
            if match is not None:  # `= value`: configparser keeps it as an option named ""
                if (section, "") in seen:
                    return Reading(lines, _error(number, "[%s] an option without a name repeats line %d"
                                                         % (section, seen[(section, "")])))
                seen[(section, "")] = number
                option_line = None  # nothing continues an option without a name
            continue
        key = match.group("option").rstrip()
        option = key.lower()
        if (section, option) in seen:
            return Reading(lines, _error(number, "[%s] %s repeats line %d (Python 3's configparser refuses "
                                                 "the file)" % (section, option, seen[(section, option)])))
        seen[(section, option)] = number
        option_line = Line(number, text, OPTION, section, option, key, match.group("value").strip())
        lines.append(option_line)
    _trim_values(lines)
    return Reading(lines, parse_error)


def _trim_values(lines):
    """configparser joins a value's lines and strips the blank lines that end it."""
    for line in lines:
        if line.kind == OPTION:
            line.value = line.value.rstrip()


def _read_py2(texts):
    lines = []
    section, option_line = None, None
    parse_error = None
    for number, text in enumerate(texts, 1):
        stripped = text.strip()
        first_word = text.split(None, 1)[0].lower() if stripped else ""
        if not stripped or text[0] in "#;" or (first_word == "rem" and text[0] in "rR"):
            lines.append(Line(number, text, BLANK if not stripped else COMMENT, section))
            continue
        if text[0].isspace() and option_line is not None:
            option_line.value += "\n" + stripped
            lines.append(Line(number, text, CONTINUATION, section, option_line.option))
            continue
        header = HEADER_TO_FIRST.match(text)
        if header:
            section, option_line = header.group("header"), None
            lines.append(Line(number, text, HEADER, section))
            continue
        if section is None:
            return Reading(lines, _before_header(number, stripped))
        match = PY2_OPTION_RE.match(text)
        if match is None:
            parse_error = parse_error or _not_a_line(number, stripped)
            lines.append(Line(number, text, COMMENT, section))
            continue
        value = match.group("value")
        at = value.find(";")
        if at != -1 and value[at - 1].isspace():  # ` ;` starts a comment after a value
            value = value[:at]
        value = value.strip()
        if value == '""':
            value = ""
        key = match.group("option").rstrip()
        option_line = Line(number, text, OPTION, section, key.lower(), key, value)
        lines.append(option_line)
    return Reading(lines, parse_error)
