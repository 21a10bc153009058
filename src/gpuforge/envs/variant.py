"""The gpuforge-built variant of an env file: gpuforge's packages from a local channel.

The default env files take libgpuarray and pygpu from pkgs/main, Theano from PyPI and
theano-gpu-config from its folder with pip. The variant (``gpuforge ci env-file FILE
--channel DIR``, what CI's second smoke pass creates) takes every package recipes/
builds from the local channel instead:

- the channel's file:// URL goes first in ``channels:`` and ``nodefaults`` last, so
  no .condarc channel (Miniforge's conda-forge) slips into the solve;
- a conda spec of a recipe's package (``pygpu=0.7.6``, or the old ``gpuforge::pygpu``)
  becomes ``<URL>::pygpu=0.7.6``;
- a ``pip:`` entry of a recipe's package becomes a conda spec on the channel at the
  version it pinned (``Theano==1.0.5`` -> ``<URL>::theano=1.0.5``); a project folder
  that is a recipe (``../recipes/theano-gpu-config``) at its meta.yaml version;
- other relative pip paths become absolute, so the variant works from any folder.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from rattler import MatchSpec
from rattler.exceptions import InvalidMatchSpecError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedSeq

from gpuforge.envs.envfile import NO_DEFAULTS, RECIPES_CHANNEL, looks_like_path
from gpuforge.errors import GpuforgeError, InputError
from gpuforge.fileio import read_text, write_atomic
from gpuforge.recipes.render import RECIPE_NAMES
from gpuforge.yamlio import expect_dependencies, expect_mapping, key_line, load_yaml, read_yaml

META_VERSION_RE = re.compile(r'{%\s*set version\s*=\s*"([^"]+)"\s*%}')


def _project_version(folder: Path, source: Path) -> str:
    try:
        m = META_VERSION_RE.search(read_text(folder / "meta.yaml"))
    except GpuforgeError:
        m = None
    if not m:
        raise GpuforgeError(
            f"pip: {folder}: a recipe folder without `{{% set version = ... %}}` in its meta.yaml", source
        )
    return m.group(1)


def _conda_name(dep: str) -> str | None:
    try:
        return MatchSpec(dep.split("::", 1)[-1]).name.normalized
    except InvalidMatchSpecError:
        return None


def _from_pip(entry: str, source: Path, url: str) -> tuple[str | None, str]:
    """(the conda spec that replaces a pip entry, or None to keep it; the entry to keep)."""
    if looks_like_path(entry):
        folder = (source.parent / entry).resolve()
        if folder.name in RECIPE_NAMES:
            return f"{url}::{folder.name}={_project_version(folder, source)}", entry
        return None, str(folder)
    try:
        req = Requirement(entry)
    except InvalidRequirement:
        return None, entry
    name = req.name.lower()
    pins = [s.version for s in req.specifier if s.operator == "=="]
    if name in RECIPE_NAMES and pins:
        return f"{url}::{name}={pins[0]}", entry
    return None, entry


def write_variant(source: Path, channel: Path, output: Path) -> Path:
    """Write the local channel variant of env file ``source`` to ``output`` (atomically)."""
    source, channel = Path(source), Path(channel)
    doc = expect_mapping(
        read_yaml(source, comments=True), source, 1, "an environment file (channels, dependencies)"
    )
    deps = expect_dependencies(doc, source)
    channels = doc.get("channels")
    if channels is None:
        doc["channels"] = channels = CommentedSeq()
    if not isinstance(channels, list) or not all(isinstance(c, str) for c in channels):
        raise GpuforgeError(
            "channels: expected a list of channel names or URLs", source, key_line(doc, "channels")
        )
    if not channel.is_dir():
        raise GpuforgeError("no such channel folder: build the packages first (ci/build.sh)", channel)
    url = channel.resolve().as_uri()
    for name in (url, RECIPES_CHANNEL, NO_DEFAULTS):
        while name in channels:
            channels.remove(name)
    channels.insert(0, url)
    channels.append(NO_DEFAULTS)
    added: list[str] = []
    for i, dep in enumerate(deps):
        if isinstance(dep, str) and _conda_name(dep) in RECIPE_NAMES:
            deps[i] = f"{url}::{dep.split('::', 1)[-1]}"
        elif isinstance(dep, dict) and isinstance(dep.get("pip"), list):
            kept = []
            for entry in dep["pip"]:
                spec, entry = _from_pip(str(entry), source, url)
                if spec:
                    added.append(spec)
                else:
                    kept.append(entry)
            dep["pip"] = kept
    for i in reversed(range(len(deps))):  # del, not a new list: the items keep their comments
        if isinstance(deps[i], dict) and deps[i].get("pip") == []:
            del deps[i]
    at = next((i for i, d in enumerate(deps) if isinstance(d, dict)), len(deps))
    for spec in reversed(added):
        deps.insert(at, spec)
    buffer = io.StringIO()
    yaml = YAML(typ="rt", pure=True)
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)  # the env files' own layout, comments kept
    yaml.dump(doc, buffer)
    header = (
        f"# {source.as_posix()} with gpuforge's packages from the local channel {url}\n"
        "# (generated by `gpuforge ci env-file`: do not edit)\n"
    )
    text = header + buffer.getvalue()
    try:  # ruamel's round trip can mangle odd keys (`? ...`): never write what does not load back
        load_yaml(text, Path(output))
    except InputError as exc:
        raise InputError(
            f"rewritten with the local channel, it would not parse back ({exc}): write its keys plainly",
            source,
        ) from None
    write_atomic(output, text)
    return Path(output)
