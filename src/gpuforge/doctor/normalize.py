"""Pasted logs to one canonical wording before the catalog's patterns see them.

The same failure reaches users in many words: Python 2's exception forms beside
Python 3's, a Windows system message in the user's language, a message quoted
with or without its error-number prefix, repr()'d paths with doubled
backslashes. Each rule here rewrites one such variation to the form the catalog
is written against, so an entry needs one pattern per failure, not per wording.

These rules are fixed code, not catalog data, and each is linear in Python's `re`: a
literal start and one character-class run that cannot overlap itself (no nested or
adjacent repeats, so no backtracking); `nox -s doctor_eval` times them on 10 MB lines.
The catalog's own patterns run on RE2 (catalog.compile_pattern).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

import re2

from gpuforge.doctor.channel_hosts import host_evidence

# Windows system error codes the catalog names, with their English message
# (winerror.h / FormatMessage text).
WINDOWS_MESSAGES = {
    5: "Access is denied.",
    126: "The specified module could not be found.",
    127: "The specified procedure could not be found.",
    182: "The operating system cannot run %1.",
    193: "%1 is not a valid Win32 application.",
    206: "The filename or extension is too long.",
    1455: "The paging file is too small for this operation to complete.",
}

# The same system messages as localized Windows prints them (FormatMessage in the
# user's UI language), by a distinctive part of each; `DLL load failed:` carries no
# error number, so these are how a localized one is recognised.
LOCALIZED_MESSAGES = {
    126: (
        "找不到指定的模块",
        "找不到指定的模組",
        "指定されたモジュールが見つかりません",
        "지정된 모듈을 찾을 수 없습니다",
        "Das angegebene Modul wurde nicht gefunden",
        "Le module spécifié est introuvable",
        "No se puede encontrar el módulo especificado",
        "Não foi possível encontrar o módulo especificado",
        "Impossibile trovare il modulo specificato",
        "Не найден указанный модуль",
    ),
    127: (
        "找不到指定的程序",
        "指定されたプロシージャが見つかりません",
        "지정된 프로시저를 찾을 수 없습니다",
        "Die angegebene Prozedur wurde nicht gefunden",
        "La procédure spécifiée est introuvable",
        "No se encontró el proceso especificado",
        "Não foi possível encontrar o procedimento especificado",
        "Не найдена указанная процедура",
    ),
    182: (
        "操作系统无法运行 %1",
        "作業系統無法執行 %1",
        "オペレーティング システムは %1 を実行できません",
        "Das Betriebssystem kann %1 nicht ausführen",
        "Le système d'exploitation ne peut pas exécuter %1",
        "O sistema operacional não pode executar %1",
        "El sistema operativo no puede ejecutar %1",
    ),
    193: (
        "%1 不是有效的 Win32 应用程序",
        "%1 不是有效的 Win32 應用程式",
        "%1 は有効な Win32 アプリケーションではありません",
        "%1 ist keine zulässige Win32-Anwendung",
        "%1 n'est pas une application Win32 valide",
        "%1 no es una aplicación Win32 válida",
        "%1 não é um aplicativo Win32 válido",
        "%1 не является приложением Win32",
    ),
    1455: (
        "页面文件太小，无法完成操作",
        "ページング ファイルが小さすぎるため",
        "Die Auslagerungsdatei ist zu klein",
        "Le fichier de pagination est insuffisant",
    ),
    5: (
        "拒绝访问",
        "存取被拒",
        "アクセスが拒否されました",
        "Zugriff verweigert",
        "Accès refusé",
        "Acceso denegado",
        "Отказано в доступе",
    ),
}


def _localized_rule() -> tuple[re.Pattern[str], dict[str, int]]:
    by_text = {text: code for code, texts in LOCALIZED_MESSAGES.items() for text in texts}
    alternatives = "|".join(re.escape(t) for t in sorted(by_text, key=len, reverse=True))
    # the localized message through the end of its sentence (。 or .), as Windows prints it
    return re.compile(f"({alternatives})[^\\n.。]*[.。]?"), by_text


LOCALIZED, LOCALIZED_CODE = _localized_rule()

# glibc's strerror(ENOENT) in the user's language: the libc.mo catalogs of glibc 2.36 (Debian's
# libc-l10n 2.36-9+deb12u14: msgid "No such file or directory"), and the older wordings of es and
# it (before 2.36) that pastes still carry
ENOENT_LOCALIZED = (
    "Aucun fichier ou dossier de ce type",
    "Datei oder Verzeichnis nicht gefunden",
    "No existe el fichero o el directorio",
    "No existe el archivo o el directorio",
    "Arquivo ou diretório inexistente",
    "Ficheiro ou pasta inexistente",
    "File o directory non esistente",
    "Nessun file o directory",
    "Нет такого файла или каталога",
    "Немає такого файла або каталогу",
    "Nie ma takiego pliku ani katalogu",
    "Adresář nebo soubor neexistuje",
    "Bestand of map bestaat niet",
    "Filen eller katalogen finns inte",
    "Tiedostoa tai hakemistoa ei ole",
    "Böyle bir dosya ya da dizin yok",
    "Không có tập tin hoặc thư mục như vậy",
    "Tidak ada berkas atau direktori seperti itu",
    "그런 파일이나 디렉터리가 없습니다",
    "没有那个文件或目录",
    "沒有此一檔案或目錄",
    "そのようなファイルやディレクトリはありません",
)
# dlerror()'s words in the user's language (glibc 2.36 libc.mo, the same catalogs), after which the
# loader gives strerror's: `libcudnn.so.7: 无法打开共享对象文件: 没有那个文件或目录`; a broken
# shared object (a compile cache's .so cut short) is "file too short" or "invalid ELF header"
LOADER_LOCALIZED = {
    "cannot open shared object file": (
        "Kann die Shared-Object-Datei nicht öffnen",
        "Ne peut ouvrir le fichier d'objet partagé",
        "no se puede abrir el fichero del objeto compartido",
        "impossibile aprire il file oggetto condiviso",
        "não é possível abrir arquivo compartilhado",
        "impossível abrir ficheiro-objecto partilhado",
        "невозможно открыть разделяемый объектный файл",
        "не вдалося відкрити файл об'єктів спільного використання",  # its ’ as normalize() leaves it
        "nie można otworzyć pliku obiektu dzielonego",
        "sdílený objektový soubor nelze otevřít",
        "kan gedeeld objectbestand niet openen",
        "kan inte öppna delad objektfil",
        "jaettua objektitiedostoa ei voi avata",
        "paylaşımlı nesne dosyası açılamıyor",
        "không thể mở tập tin đối tượng dùng chung",
        "tidak dapat membuka berkas objek terbagi",
        "동적 오브젝트 파일을 열 수 없습니다",
        "无法打开共享对象文件",
        "無法開啟共用物件",
        "共有オブジェクトファイルを開けません",
    ),
    "file too short": (
        "Die Datei ist zu kurz",
        "fichier trop court",
        "fichero demasiado corto",
        "file troppo corto",
        "arquivo pequeno demais",
        "файл слишком мал",
        "файл є надто коротким",
        "plik za krótki",
        "文件过短",
        "檔案太小",
        "ファイルが小さすぎます",
        "파일이 너무 짧습니다",
    ),
    "invalid ELF header": (
        "Ungültiger ELF-Header",
        "en-tête ELF invalide",
        "cabecera ELF inválida",
        "intestazione ELF non valida",
        "cabeçalho de ELF inválido",
        "неверный заголовок ELF",
        "некоректний заголовок ELF",
        "nieprawidłowy nagłówek ELF",
        "无效的 ELF 头",
        "無效的 ELF 標頭",
        "無効な ELF ヘッダーです",
        "ELF 헤더가 잘못됨",
    ),
}


def _in_english(template: str) -> Callable[[re.Match[str]], str]:
    """A replacement that puts the name a translated message quotes (the one alternative's group
    that matched) into the English ``template``."""
    return lambda m: template.format(next(g for g in m.groups() if g))


def _unless_raised(m: re.Match[str]) -> str:
    """A quoted `raise`/`warn`/`return` line's message cut, unless a traceback's frame line
    shows the `raise` ran."""
    if m[1] and m[2].lstrip(" \t>").startswith("raise "):
        return m[0]
    return f"{m[1] or ''}{m[2]}...)"


# (pattern, replacement); applied in order, each over the whole text.
RULES = [
    (re.compile(p), r)
    for p, r in (
        (r"\x1b\[[0-9;]*[A-Za-z]", ""),  # terminal colours
        # a program's source quoted in the paste (a user quoting Theano's init_dev or
        # _dnn_check_version): `raise E("message")`, `warnings.warn("message"` and `return
        # False, "message"` are code that may not have run, so the message is not the program's
        # output (one that ran prints it on the exception's or the warning's own line); but a
        # `raise` right under a traceback's frame line is the line that raised (a paste cut
        # after it shows its message nowhere else)
        (
            r"(?m)^([^\n]*\", line \d+, in [^\n]*\n)?"
            r"([ \t>]*(?:raise [\w.]+\(|warnings\.warn\(|return [\w.]+, ))[\"'][^\n]*",
            _unless_raised,
        ),
        (r"\r\n?", "\n"),
        # GCC's quotes in a UTF-8 locale as Python 2 repr()s a byte string (Theano 0.x's
        # `Compilation failed` exception): `\xe2\x80\x98hypot\xe2\x80\x99` is `'hypot'`
        (r"\\xe2\\x80\\x9[89]", "'"),
        (r"\\xe2\\x80\\x9[cd]", '"'),
        (r"\\\\", r"\\"),  # repr()'d Windows paths
        # a message inside a JSON string (Jupyter's error output: "message": "... Error loading
        # \"C:\\...\\fbgemm.dll\" or ..."): its escaped quotes are the message's own
        (r'\\"', '"'),
        # Python 2: `WindowsError: [Error 126] ...` is Python 3's `OSError: [WinError 126] ...`
        (r"WindowsError: *", "OSError: "),
        (r"\[Error (\d+)\]", r"[WinError \1]"),
        # Python 2's `ImportError: No module named torch._C` is Python 3's ModuleNotFoundError
        # (the catalog's patterns take the name with or without quotes)
        (r"ModuleNotFoundError:", "ImportError:"),
        # Python 2's `'module' object has no attribute 'x'` names no module; 3's names it
        (r"'module' object has no attribute", "module '?' has no attribute"),
        # Python >= 3.8's ctypes/os.add_dll_directory form of error 126
        (
            r"Could not find module '([^'\n]+)' \(or one of its dependencies\)",
            r'[WinError 126] The specified module could not be found. Error loading "\1" '
            r"or one of its dependencies",
        ),
        # GCC, ld and the dynamic loader in the user's language: glibc's strerror(ENOENT) and
        # dlerror()'s words (ENOENT_LOCALIZED, LOADER_LOCALIZED), and
        # GCC's "fatal error"
        (rf" ?: ({'|'.join(map(re.escape, ENOENT_LOCALIZED))})", ": No such file or directory"),
        *(
            (rf": ({'|'.join(map(re.escape, words))})", f": {english}")
            for english, words in LOADER_LOCALIZED.items()
        ),
        (
            r"erreur fatale|schwerwiegender Fehler|error fatal|erro fatal|errore fatale|"
            r"致命错误|致命的エラー|嚴重錯誤|фатальная ошибка|критична помилка",
            "fatal error",
        ),
        # GCC's diagnostics in the user's language (gcc-12-locales 12.2.0-14+deb12u1, sha256
        # a701516b...abe28f: gcc-12.mo; reproduced with g++ 12 under LANGUAGE): a diagnostic's
        # "error" after its file:line:column, and "%qD was not declared in this scope" with the
        # name in the English quotes again
        (r"(:\d+:\d+: )(?:错误|錯誤|Fehler|erreur|ошибка|помилка|errore|erro|エラー)(: )", r"\1error\2"),
        (
            r"'(?P<zh>[^'\n]+)'在此作用域中尚未声明|「(?P<tw>[^」\n]+)」 ?在此作用欄位中尚未宣告|"
            r"»(?P<de>[^«\n]+)« wurde in diesem Gültigkeitsbereich nicht definiert|"
            r"'(?P<es>[^'\n]+)' no se declaró en este ámbito|"
            r"«[ \xa0]?(?P<fr>[^»\n]+?)[ \xa0]?» n'a pas été déclaré dans cette portée|"
            r"нет декларации «(?P<ru>[^»\n]+)» в этой области видимости",
            _in_english("'{}' was not declared in this scope"),
        ),
        # GNU ld in the user's language: "%P: cannot find %s" as binutils 2.40's ld.mo catalogs
        # translate it (zh_CN/zh_TW, da, es, fr, it, pt_BR, ru, uk, sv, vi, id before the name;
        # ja, tr, fi after it; French typography puts a no-break space before the colon), for a
        # library flag
        (
            r"\bld(\.exe)?[ \xa0]?:[ \xa0](?:找不到|kan ikke finde|no se puede encontrar|ne peut pas trouver|"
            r"impossibile trovare|não foi possível localizar|невозможно найти|не вдалося знайти|"
            r"kan inte hitta|không tìm thấy|tidak dapat menemukan) (-l[\w.+-]+)",
            r"ld\1: cannot find \2",
        ),
        (
            r"\bld(\.exe)?[ \xa0]?:[ \xa0](?:kohdetta )?(-l[\w.+-]+) "
            r"(?:が見つかりません|bulunamadı|ei löydy)",
            r"ld\1: cannot find \2",
        ),
        # ... and its "undefined reference to `%pT'" (binutils 2.40's ld.mo: es, ru, uk, fr, pt_BR,
        # it; zh_CN's and ja's catalogs translate the older msgid "%X%C: undefined reference to
        # `%T'", which earlier binutils printed), the symbol in the English quotes again
        (
            r"referencia a '(?P<s>[^'\n]+)' sin definir|неопредел[её]нная ссылка на «(?P<r>[^»\n]+)»|"
            r"невизначене посилання (?:на )?«(?P<u>[^»\n]+)»|"
            r"référence indéfinie vers «[ \xa0]?(?P<f>[^»\n]+?)[ \xa0]?»|"
            r'referência não definida para "(?P<p>[^"\n]+)"|riferimento non definito a "(?P<i>[^"\n]+)"|'
            r"对'(?P<z>[^'\n]+)'未定义的引用|'(?P<j>[^'\n]+)' に対する定義されていない参照です",
            _in_english("undefined reference to '{}'"),
        ),
        # Python >= 3.8 names the module: `DLL load failed while importing _C: ...`, read as the
        # older words with the module kept after the message (Python's own _ssl is another cause)
        (r"DLL load failed while importing ([\w.]+):([^\n]*)", r"DLL load failed:\2 (importing \1)"),
        # torch's `Error loading "<dll>"` line pasted without the `[WinError 126]` before error 126's
        # message (the prefix cut off): the message is that error's, the number goes back
        (
            r"(\[WinError \d+\] |OSError: )?(The specified module could not be found\.\s+Error loading)",
            lambda m: (
                m.group(0)
                if m.group(1) and m.group(1).startswith("[")
                else f"{m.group(1) or ''}[WinError 126] {m.group(2)}"
            ),
        ),
    )
]


def _english(match: re.Match[str]) -> str:
    return WINDOWS_MESSAGES[LOCALIZED_CODE[match.group(1)]]


# GCC's quotes in a UTF-8 locale, Markdown's backticks, and the curly and full-width
# punctuation that word processors, chat apps and Chinese/Japanese input methods put in a paste
QUOTES = ("‘", "’", "`", "´", "＇")
PUNCTUATION = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "„": '"',
        "＂": '"',
        "：": ": ",
        "（": " (",
        "）": ") ",
        "［": "[",
        "］": "]",
        "【": "[",
        "】": "]",
        "，": ", ",
        "；": "; ",
    }
)
# digits a user redacted (a process id as ***, a number as XXXX): a number to the patterns
REDACTED = [(re.compile(r"\*{3,}|\bX{4,}\b"), "0")]
ALL_RULES = [*RULES, *REDACTED, (LOCALIZED, _english)]


def _rule_set() -> re2.Set:
    """All rules in one RE2 set: one pass over the text tells which rules apply at all
    (Python's `re` takes 0.05-0.4 s to find nothing in 10 MB for some of them)."""
    options = re2.Options()
    options.log_errors = False
    rules = re2.Set.SearchSet(options)
    for pattern, _ in ALL_RULES:
        rules.Add(pattern.pattern)
    rules.Compile()
    return rules


RULE_SET = _rule_set()


def normalize(text: str) -> str:
    """``text`` with every known variation of wording rewritten to the catalog's form."""
    # a lone surrogate (a probe report's undecodable bytes, JSON's "\udcff") as its escape: RE2
    # takes UTF-8, which has none
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    for quote in QUOTES:
        text = text.replace(quote, "'")
    text = text.translate(PUNCTUATION)
    for index in sorted(RULE_SET.Match(text) or []):
        pattern, replacement = ALL_RULES[index]
        text = pattern.sub(replacement, text)
    return text


# --- evidence in a traceback's paths ----------------------------------------------------------
# A pasted traceback shows where each module was imported from. Two shapes name a cause
# on their own, and become a line the catalog matches (`gpuforge-evidence: ...`):
# - a package imported from outside the installation: `torch/__init__.py` (or pygpu's) of a
#   source tree, a ./torch.py, or torch partially initialized (it imported itself): the
#   uncompiled checkout or the file shadows the installed, built package;
# - a module shadowed by a user's file: a single file named like a package (numpy.py: real
#   packages are folders), or named like a standard-library module and imported by library
#   code (the frame right before it is in the installation), or named in an ImportError
#   `cannot import name 'x' from 'random' (/home/me/random.py)`.

FRAME = re.compile(r'^[ \t>]*File "([^"\n]+)", line \d+|^([^\s<][^\n]*?\.py) in [<\w]', re.M)
PARTIAL = re.compile(
    r"partially initialized module '(\w+)' "
    r"(?:has no attribute|\(most likely due to a circular)|"
    r"module '(\w+)' has no attribute '\w+' \(most likely due to a circular import\)"
)
# Python 3.8+'s `cannot import name 'X' from 'M' (path)`: the module asked, and its file
CANNOT_GIVE = re.compile(r"cannot import name '?\w+'? from '(\w+)'")
FROM_FILE = re.compile(CANNOT_GIVE.pattern + r" \(([^)\n]+\.py)\)")
# CPython's import of `X.Y` where X is a plain module, not a package (importlib/_bootstrap.py
# _find_and_load_unlocked, 3.7 to 3.13: `No module named 'X.Y'; 'X' is not a package`): the
# file X.py imported is not the package X
NOT_A_PACKAGE = re.compile(r"No module named '(\w+)\.[\w.]+'; '\1' is not a package")
# `module 'mxnet' has no attribute 'nd'`: what every release of the package has is missing, so
# the module imported is not the package (Python 2 names no module: `'?'`, see RULES)
NO_ATTRIBUTE = re.compile(r"module '(\w+|\?)' has no attribute '(\w+)'")
CORE_ATTRIBUTES = {
    "mxnet": {"nd", "ndarray", "sym", "symbol", "gluon", "gpu", "cpu", "context"},
    "torch": {"rand", "randn", "tensor", "Tensor", "cuda", "nn", "zeros", "from_numpy", "device"},
    "numpy": {"array", "zeros", "ndarray", "arange", "dtype", "float32"},
    "theano": {"function", "shared", "tensor", "config"},
}
INSTALLED = re.compile(
    r"site-packages|dist-packages|[/\\]lib[/\\]|[/\\]lib64[/\\]|<|\.egg|\.pyx|"
    r"Python\.framework|[/\\]python\d[\d.]*[/\\]",
    re.I,
)
BUILT_PACKAGES = ("torch", "pygpu")  # a source checkout of these lacks the compiled modules
PACKAGES = frozenset(
    {
        "numpy",
        "scipy",
        "torch",
        "theano",
        "pygpu",
        "mxnet",
        "onnx",
        "tensorflow",
        "keras",
        "pandas",
        "matplotlib",
        "sklearn",
        "cv2",
        "torchvision",
        "lasagne",
        "pymc3",
        "pymc",
        "aesara",
    }
)
NOT_SHADOWS = frozenset({"__init__", "__main__", "test", "tests", "setup", "main", "this"})
STDLIB = frozenset(sys.stdlib_module_names) - NOT_SHADOWS
SHADOWED = PACKAGES - NOT_SHADOWS | STDLIB


def _stem(path: str) -> tuple[str, str]:
    """(the file's module name, its folder's name) of a path in Windows or POSIX form."""
    parts = re.split(r"[/\\]", path)
    return parts[-1][:-3] if parts[-1].endswith(".py") else "", parts[-2] if len(parts) > 1 else ""


TRACEBACK = "Traceback (most recent call last)"
# a frame line and its code line (indented deeper than the exception line that may follow)
FRAME_LINE = re.compile(r'^[ \t>]*File "[^"\n]+", line \d+[^\n]*(\n[ \t>]{3,}\S[^\n]*)?', re.M)
EXCEPTION_LINE = re.compile(r"^[ \t>]*[\w.]*(Error|Exception|Exit|Interrupt|Warning)\b", re.M)


def last_frames_of_cut_traceback(text: str, count: int = 2) -> list[str] | None:
    """The last frames (with their code line) of a paste that ends inside a traceback, before
    its exception line; None when the paste is not cut so."""
    start = text.rfind(TRACEBACK)
    if start < 0:
        return None
    frames = [m.group(0) for m in FRAME_LINE.finditer(text, start)]
    after = text.rfind(frames[-1]) + len(frames[-1]) if frames else start + len(TRACEBACK)
    if EXCEPTION_LINE.search(text, after) is not None:
        return None
    return [" ".join(f.split()) for f in frames[-count:]]


def _shadow(name: str) -> str:
    """The evidence wording for ``name`` imported from the wrong place: a built package's
    source or file (torch_C_shadow, libgpuarray_source_checkout) or any other module_shadow."""
    return (
        f"{name} imported from outside the installation"
        if name in BUILT_PACKAGES
        else f"module_shadow: {name}"
    )


def _owner(module: str, attribute: str, text: str) -> str | None:
    """The package a `module 'M' has no attribute 'A'` is about, when A is one of its core
    attributes; Python 2's `'?'` names no module: A must then belong to one package only, and
    the paste must not name another package without naming it (`lasagne.utils.theano.sandbox.cuda`
    misses Theano's `cuda`, not torch's)."""
    if module == "?":
        owners = [p for p, names in CORE_ATTRIBUTES.items() if attribute in names]
        if len(owners) != 1:
            return None
        others = any(re.search(rf"\b{p}\b", text) for p in PACKAGES - {owners[0]})
        return owners[0] if re.search(rf"\b{owners[0]}\b", text) or not others else None
    return module if attribute in CORE_ATTRIBUTES.get(module, ()) else None


# numpy's `module compiled against API version 0xN but this version of numpy is 0xM` names no
# module: the package that raised it is in the traceback (Cython's `(pygpu/gpuarray.c:123)`, the
# frame of an installed package) or in the import the user ran
NUMPY_ABI = "module compiled against API version"
CYTHON_PLACE = re.compile(r"\((\w+)[/\\][\w/\\]+\.c:\d+\)")
PACKAGE_FRAME = re.compile(r"(?:site|dist)-packages[/\\](\w+)[/\\]")
IMPORTED = re.compile(r"^[ \t]*(?:>>> )?(?:import|from) (\w+)", re.M)


def numpy_abi_package(text: str) -> str | None:
    """The package whose compiled module numpy refused (its C API newer than numpy's)."""
    start = text.find(NUMPY_ABI)
    if start < 0:
        return None
    window = text[max(0, start - 4000) : start + 4000]
    for rule in (CYTHON_PLACE, PACKAGE_FRAME, IMPORTED):
        names = [n for n in rule.findall(window) if n not in ("numpy", "os", "sys")]
        if names:
            return names[-1] if rule is not PACKAGE_FRAME else names[0]
    return None


# A paste wrapped at a fixed width (an e-mail, a forum, a terminal copied line by line) splits
# a word or a path across lines; the catalog's patterns see the text a second time unwrapped.
WRAP_WIDTH = 60  # a line this long or longer, followed by one that goes on, may be wrapped
MAX_UNWRAP = 1 << 20  # a log this large was saved, not pasted


def unwrapped(text: str, sep: str = "") -> tuple[str, list[int]] | None:
    """``text`` with each line that looks hard-wrapped joined to the next by ``sep`` (none: the
    wrap may split a word; a space: it may fall between two), and the offsets in ``text`` of the
    newlines removed; None when no line looks wrapped."""
    if len(text) > MAX_UNWRAP:
        return None
    lines = text.split("\n")
    removed, out, offset = [], [], 0
    for i, line in enumerate(lines):
        out.append(line)
        offset += len(line)
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if (
            len(line.rstrip()) >= WRAP_WIDTH
            and nxt[:1] not in ("", " ", "\t")
            and not line.endswith((".", ":"))
            and not EXCEPTION_LINE.match(nxt)
            and not nxt.startswith(("Traceback", "File ", "#"))
        ):
            removed.append(offset)
            out.append(sep)
        elif i + 1 < len(lines):
            out.append("\n")
        offset += 1
    return ("".join(out), removed) if removed else None


# a shadow in the user's own words, beside the import error it caused: "I named the .py file
# with "pymc3.py"", "my script was called numpy.py" (Python 2's `cannot import name` shows no path)
NAMED_LIKE = re.compile(r"\b(?:named|called|saved as)\b[^\n]{0,40}?\b(\w+)\.py\b", re.I)
IMPORT_FAILED = re.compile(r"\b(?:ImportError|AttributeError|ModuleNotFoundError)\b")

# Python's repr of a module (Objects/moduleobject.c module_repr; importlib's _module_repr_from_spec):
# `<module 'pymc3.math' from '/home/u/pymc3/pymc3/math.py'>`, or a folder with no __init__.py
# imported as a namespace package, `<module 'pymc3' (namespace)>` (3.11 and later add
# `from ['/home/u/pymc3']`): printed beside an error saying the package lacks an attribute, the
# package came from a folder, not the installation
MODULE_REPR = re.compile(r"<module '(\w+)((?:\.\w+)*)' (?:(\(namespace\))|from '([^'\n]+)')")


def _repr_shadows(text: str, lacking: set[str]) -> list[str]:
    """module_shadow evidence from the module reprs a paste prints, for a package ``lacking`` an
    attribute or a name the paste asked of it."""
    found = []
    for top, dotted, namespace, path in MODULE_REPR.findall(text):
        if top not in lacking:
            continue
        if namespace:
            found.append(f"gpuforge-evidence: module_shadow: {top} is a folder without __init__.py")
            continue
        tail = "/".join([top, *dotted.strip(".").split(".")]) if dotted else f"{top}/__init__"
        if not INSTALLED.search(path) and re.sub(r"[\\/]+", "/", path).endswith(f"{tail}.py"):
            found.append(f"gpuforge-evidence: module_shadow: {top} imported from {path}")
    return found


# conda's check of a download's length (conda/gateways/download.py from 4.3.2): fewer bytes than
# the header is a cut download; more is conda 4.3.2-4.3.4 counting the gzip-decoded body (conda
# commit db6d153ff, #4326, in 4.3.5: "streamed_bytes ... the decompressed form of the actual data")
CONTENT_LENGTH = re.compile(r"Content-Length: (\d+)\s+downloaded bytes: (\d+)")


# Theano's compile error joins the compiler's lines with `. ` (rel-0.8.2 theano/gof/cmodule.py:2203-2204,
# rel-0.9.0 :2315-2316, rel-1.0.5 :2410-2411: raise Exception('Compilation failed (return status=%s):
# %s' % (status, compile_stderr.replace('\n', '. '))); on Windows each line keeps its `\r`
THEANO_COMPILE_FAILED = re.compile(r"Compilation failed \(return status=-?\d+\): ([^\n]+)")
THEANO_LINE_JOIN = re.compile(r"(?:\\r|\r)?\. ")


def compiler_lines(text: str) -> list[str]:
    """The compiler's own lines inside Theano's `Compilation failed` messages, one per line again
    as the compiler printed them (so that patterns reading a compiler line to its end match)."""
    lines: dict[str, None] = {}
    for m in THEANO_COMPILE_FAILED.finditer(text):
        parts = THEANO_LINE_JOIN.split(m.group(1))
        if len(parts) > 1:
            lines.update(dict.fromkeys(part for part in parts if part.strip()))
    return list(lines)


def evidence_lines(text: str) -> list[str]:
    """What the paths of a pasted traceback show (and conda's byte count beside its header),
    one `gpuforge-evidence:` line per fact."""
    found: dict[str, None] = {}
    frames = [m.group(1) or m.group(2) for m in FRAME.finditer(text)]
    for i, path in enumerate(frames):
        if INSTALLED.search(path):
            continue
        name, folder = _stem(path)
        if name == "__init__" and folder in BUILT_PACKAGES:
            found[f"gpuforge-evidence: {folder} imported from outside the installation: {path}"] = None
        elif name in BUILT_PACKAGES:  # ./torch.py
            found[f"gpuforge-evidence: {name} imported from outside the installation: {path}"] = None
        elif name in PACKAGES or (name in SHADOWED and i > 0 and INSTALLED.search(frames[i - 1])):
            found[f"gpuforge-evidence: module_shadow: {name} imported from {path}"] = None
        elif name in STDLIB and i == 0 and any(INSTALLED.search(f) for f in frames[1:]):
            # the script itself (`python select.py`): its folder comes first on sys.path, so
            # every `import select` below it, the standard library's own included, gets it
            found[f"gpuforge-evidence: module_shadow: {name} imported from {path} (the script)"] = None
    for parent in NOT_A_PACKAGE.findall(text):
        files = [p for p in frames if not INSTALLED.search(p) and _stem(p)[0] == parent]
        if parent not in BUILT_PACKAGES and (files or parent in PACKAGES):
            where = f" ({files[0]})" if files else ""
            found[f"gpuforge-evidence: module_shadow: {parent} is a module, not the package{where}"] = None
    for m in PARTIAL.finditer(text):  # a circular import of a package: it imported itself
        found[f"gpuforge-evidence: {_shadow(m.group(1) or m.group(2))}: partially initialized"] = None
    cut = last_frames_of_cut_traceback(text)
    if cut:  # what the last frames were doing is all there is: entries may match it
        found["gpuforge-evidence: cut inside a traceback, last frames: " + " | ".join(cut)] = None
    no_attribute = NO_ATTRIBUTE.findall(text)
    for module, attribute in no_attribute:
        owner = _owner(module, attribute, text)
        if owner:
            found[f"gpuforge-evidence: {_shadow(owner)}: it has no attribute {attribute!r}"] = None
    package = numpy_abi_package(text)
    if package:
        found[f"gpuforge-evidence: numpy C API mismatch: {package} was built against a newer numpy"] = None
    if IMPORT_FAILED.search(text):
        for name in NAMED_LIKE.findall(text):
            if name in PACKAGES:
                found[f"gpuforge-evidence: module_shadow: {name}: the user named a file {name}.py"] = None
    for module, path in FROM_FILE.findall(text):
        if not INSTALLED.search(path) and _stem(path)[0] == module:
            found[f"gpuforge-evidence: module_shadow: {module} imported from {path}"] = None
    lacking = {module for module, _ in no_attribute} | set(CANNOT_GIVE.findall(text))
    found.update(dict.fromkeys(_repr_shadows(text, lacking)))
    for header, downloaded in CONTENT_LENGTH.findall(text):
        if int(downloaded) > int(header):
            found["gpuforge-evidence: conda counted more bytes than Content-Length (a decoded body)"] = None
    found.update(dict.fromkeys(host_evidence(text)))
    return list(found)
