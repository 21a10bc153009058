"""gpu_smoke's reports: a table for people, JSON and JUnit XML for CI, one directory."""

from __future__ import annotations

import json
import platform
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from gpuforge import __version__
from gpuforge.fileio import write_atomic
from gpuforge.smoke.run import TargetResult

STYLE = {"pass": "green", "fail": "bold red", "skip": "yellow"}


def build_report(results: list[TargetResult], started: float) -> dict[str, Any]:
    return {
        "gpuforge": __version__,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "seconds": round(time.time() - started, 3),
        "host": {"platform": platform.platform(), "machine": platform.machine()},
        "status": "fail" if any(r.status == "fail" for r in results) else "pass",
        "targets": [r.as_json() for r in results],
    }


def _check_summary(check: dict[str, Any]) -> str:
    name = check.get("check")
    if check["status"] != "pass":
        return check.get("reason", "")
    if name == "exp":
        dev = check.get("devname") or check.get("requested_device")
        where = (
            (
                f"; {check['platform']}: compiledir {check.get('compiledir')}, reads "
                f"{', '.join(check.get('config_files') or [])}"
            )
            if check.get("platform") == "win32"
            else ""
        )
        return (
            f"{check['used']} ({dev}) {check['loop_seconds']:.2f}s vs numpy "
            f"{check['numpy_seconds']:.2f}s; seed check says {check['seed_check_says']!r}{where}"
        )
    if name == "transfer":
        return (
            f"kept on device {check['kept_on_device_seconds']:.3f}s, "
            f"copied back {check['copied_back_seconds']:.3f}s"
        )
    if name == "logreg":
        return (
            f"accuracy {check['accuracy']:.3f}, loss {check['first_loss']:.2f} -> "
            f"{check['last_loss']:.2f} in {check['steps']} steps, Gemv on {check['gemv_on']}, "
            f"{check['seconds']:.1f}s"
        )
    if name == "pygpu":
        return f"{check['devname']}: elementwise and sum match numpy"
    return check.get("reason") or "ok"


NARROW = 60  # columns: below this the table's four columns fold into unreadable slivers


def _merged(rows: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """Checks that say the same thing with the same status, one row: `reduce, gemm skip`."""
    merged: list[tuple[str, str, str]] = []
    for check, status, summary in rows:
        if merged and merged[-1][1:] == (status, summary) and summary:
            merged[-1] = (f"{merged[-1][0]}, {check}", status, summary)
        else:
            merged.append((check, status, summary))
    return merged


def print_table(results: list[TargetResult], console: Console) -> None:
    if console.width < NARROW:  # one line per target, then per check, wrapped as text
        for r in results:
            console.print(
                f"{r.name}: {r.status}" + (f": {r.reason}" if r.reason and not r.checks else ""),
                highlight=False,
                markup=False,
            )
            for c in r.checks + r.import_tests:
                console.print(
                    f"  {c.get('check') or c.get('name')}: {c['status']}", highlight=False, markup=False
                )
        return
    table = Table(title="gpu_smoke")
    for column in ("target", "status", "check", "result"):
        table.add_column(column, overflow="fold")
    for r in results:
        style = STYLE[r.status]
        rows = _merged(
            [
                (str(c.get("check") or c.get("name")), c["status"], _check_summary(c))
                for c in r.checks + r.import_tests
            ]
        )
        if not rows:
            rows = [("", "", r.reason)]
        elif r.note:  # what holds for every check, once
            rows.insert(0, ("note", "", r.note))
        rows += [(f"[bold]{f['id']}[/]", "", f"{f['title']}\nfix: {f['fix']}") for f in r.findings]
        rows += [("hint", "", r.hint)] if r.hint else []
        for i, (check, status, summary) in enumerate(rows):
            table.add_row(
                r.name if i == 0 else "",
                f"[{style}]{r.status}[/]" if i == 0 else "",
                f"{check} [{STYLE.get(status, '')}]{status}[/]" if status else check,
                summary,
                end_section=i == len(rows) - 1,
            )
    console.print(table)


def summary_line(results: list[TargetResult]) -> str:
    """One line at the end: the verdict, and which targets passed, failed and were skipped."""
    parts = []
    for status, label in (("pass", "passed"), ("fail", "failed"), ("skip", "skipped")):
        names = [r.name for r in results if r.status == status]
        if names:
            parts.append(f"{len(names)} {label} ({', '.join(names)})")
    verdict = "fail" if any(r.status == "fail" for r in results) else "pass"
    return f"gpu_smoke: {verdict}: " + ("; ".join(parts) if parts else "no target run")


def junit_xml(report: dict[str, Any]) -> str:
    suites = ET.Element("testsuites", name="gpu_smoke")
    for target in report["targets"]:
        cases = target["checks"] + target["import_tests"]
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=target["name"],
            tests=str(max(len(cases), 1)),
            failures=str(sum(c["status"] == "fail" for c in cases)),
            skipped=str(sum(c["status"] == "skip" for c in cases)),
        )
        if not cases:  # a skipped or refused target is one test case
            case = ET.SubElement(suite, "testcase", classname=target["name"], name="target")
            tag = "skipped" if target["status"] == "skip" else "failure"
            ET.SubElement(case, tag, message=target["reason"])
            suite.set("failures" if tag == "failure" else "skipped", "1")
            continue
        for c in cases:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=target["name"],
                name=str(c.get("check") or c.get("name")),
                time=f"{c.get('seconds', 0):.3f}",
            )
            if c["status"] == "skip":
                ET.SubElement(case, "skipped", message=c.get("reason", ""))
            elif c["status"] == "fail":
                fixes = "; ".join(f"{f['id']}: {f['fix']}" for f in c.get("findings", []))
                failure = ET.SubElement(case, "failure", message=c.get("reason", ""))
                failure.text = fixes or json.dumps(c.get("error", {}), indent=1)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def write_reports(report: dict[str, Any], report_dir: Path) -> tuple[Path, Path]:
    report_dir = Path(report_dir)
    json_path = report_dir / "gpu_smoke.json"
    xml_path = report_dir / "gpu_smoke.junit.xml"
    write_atomic(json_path, json.dumps(report, indent=2, default=str) + "\n", backup=False)
    write_atomic(xml_path, junit_xml(report), backup=False)
    return json_path, xml_path
