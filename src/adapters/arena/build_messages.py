"""What a build tells the bot's owner (spec B2): the compiler's text without server
paths and naming the uploaded file, and each limit a build met, in Vietnamese."""

from __future__ import annotations

import re

from noitu.adapters.arena.build_driver import SOURCE_DIR, WORK_DIR
from noitu.adapters.arena.cgroups.limits import MIB, CgroupLimits
from noitu.application.arena.limits import MAX_ARTEFACT_BYTES, MAX_JAVA_CLASSES
from noitu.application.arena.ports import BuildLimit


def limit_message(limit: BuildLimit, wall_s: float, cgroup: CgroupLimits) -> str:
    if limit == "wall":
        seconds = f"{wall_s:g}".replace(".", ",")
        return f"Biên dịch bị dừng: vượt quá giới hạn thời gian {seconds} giây."
    if limit == "memory":
        megabytes = cgroup.memory_bytes // MIB
        return f"Biên dịch bị dừng: vượt quá giới hạn bộ nhớ {megabytes} MB."
    pids = cgroup.pids_max
    return f"Biên dịch bị dừng: vượt quá giới hạn {pids} tiến trình/luồng."


def cleaned(output: bytes, truncated: bool) -> str:
    text = output.decode("utf-8", "replace")
    for folder in (WORK_DIR, SOURCE_DIR):
        text = text.replace(f"{folder}/", "")
    if truncated:
        text += "\n… (đã cắt bớt)"
    return text.strip()


def name_the_upload(messages: str, compiled_as: str, shown_as: str | None) -> str:
    """`messages` where they name the compiled file `compiled_as` as a place (followed
    by `:` or `"`, or after javac's `Note: `) naming `shown_as` instead."""
    if not shown_as or shown_as == compiled_as:
        return messages
    name = re.escape(compiled_as)
    place = re.compile(rf'(?<![\w./\\-]){name}(?=[:"])|(?<=Note: ){name}(?![\w.])')
    return place.sub(lambda _: shown_as, messages)


def vi_number(value: int) -> str:
    return f"{value:,}".replace(",", ".")


def _mib(size: int) -> str:
    return f"{size / MIB:.1f}".replace(".", ",")


def artefact_too_big(size: int | None = None) -> str:
    made = f" ({_mib(size)} MiB)" if size else ""
    return (
        f"Chương trình biên dịch ra quá lớn{made}: tối đa {MAX_ARTEFACT_BYTES // MIB} MiB."
    )


def too_many_classes(count: int) -> str:
    return (
        f"Bản dựng Java tạo ra {vi_number(count)} tệp .class: "
        f"tối đa {vi_number(MAX_JAVA_CLASSES)} tệp."
    )


def build_space_full(tmp_bytes: int) -> str:
    return (
        f"Biên dịch bị dừng: các tệp tạm của bản dựng vượt quá {tmp_bytes // MIB} MiB "
        f"(chương trình biên dịch ra tối đa {MAX_ARTEFACT_BYTES // MIB} MiB)."
    )
