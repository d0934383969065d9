"""The players' calendar day: the date in Vietnam (Asia/Ho_Chi_Minh, UTC+7 all year,
no daylight saving since 1975), as a day number counted from 1970-01-01.

One home for the day both B11 (a user's daily reports) and B13 (the daily game) count
on. Pure: time comes in as int milliseconds since the Unix epoch.
"""

from __future__ import annotations

DAY_MS = 86_400_000
VIETNAM_UTC_OFFSET_MS = 7 * 3_600_000  # the players' calendar day (UTC+7, no DST)


def day_of(now_ms: int) -> int:
    """The number of the players' calendar day at `now_ms`."""
    return (now_ms + VIETNAM_UTC_OFFSET_MS) // DAY_MS


def day_start_ms(day: int) -> int:
    """When a day begins: its midnight in Vietnam, in ms since the epoch."""
    return day * DAY_MS - VIETNAM_UTC_OFFSET_MS


def next_day_ms(now_ms: int) -> int:
    """The next midnight of the players' calendar after `now_ms`."""
    return day_start_ms(day_of(now_ms) + 1)


def civil_date(day: int) -> tuple[int, int, int]:
    """(year, month, day of month) of a day number, in the proleptic Gregorian calendar
    (the days-to-civil conversion over 400-year eras)."""
    shifted = day + 719_468  # days from 0000-03-01
    era = shifted // 146_097
    day_of_era = shifted - era * 146_097
    year_of_era = (
        day_of_era - day_of_era // 1_460 + day_of_era // 36_524 - day_of_era // 146_096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153  # March is 0
    month_day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + 3 if month_index < 10 else month_index - 9
    year = year_of_era + era * 400 + (month <= 2)
    return year, month, month_day


def iso_date(day: int) -> str:
    """A day number as YYYY-MM-DD."""
    year, month, month_day = civil_date(day)
    return f"{year:04d}-{month:02d}-{month_day:02d}"
