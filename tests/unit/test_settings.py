"""Settings from the environment: defaults, one message per bad value, enablement."""

from __future__ import annotations

import pytest

from noitu.entrypoints.settings import SettingsError, load_settings


def test_defaults_are_local_play():
    settings = load_settings({})
    assert settings.local_play and settings.game_enabled
    assert (settings.bind_host, settings.port) == ("127.0.0.1", 8080)
    assert (settings.turn_ms, settings.grace_ms) == (30_000, 2_000)
    assert settings.effective_log_format == "console"


def test_every_bad_value_is_named():
    with pytest.raises(SettingsError) as caught:
        load_settings(
            {
                "NOITU_TURN_SECONDS": "soon",
                "NOITU_GRACE_SECONDS": "-1",
                "NOITU_PORT": "80000",
                "NOITU_LOG_FORMAT": "xml",
                "TELEGRAM_MODE": "carrier-pigeon",
                "NOITU_STORE": "redis",
            }
        )
    problems = caught.value.problems
    for name in ("NOITU_TURN_SECONDS", "NOITU_GRACE_SECONDS", "NOITU_PORT", "NOITU_LOG_FORMAT", "TELEGRAM_MODE", "REDIS_URL"):
        assert any(name in p for p in problems), name


@pytest.mark.parametrize(
    ("url", "enabled"),
    [
        ("https://noitu.example.com", True),
        ("https://example.com/bots/noitu", True),
        ("https://example.com:8443", True),
        ("https://example.com/", False),
        ("http://example.com", False),
        ("https://", False),
        ("noitu.example.com", False),
        ("https://example.com/a b", False),
    ],
)
def test_game_base_url(url, enabled):
    settings = load_settings({"TELEGRAM_BOT_TOKEN": "1:x", "GAME_BASE_URL": url})
    assert settings.game_enabled is enabled
    assert bool(settings.warnings) is not enabled


def test_modules():
    assert load_settings({"MODULES": "noitu, other"}).noitu_enabled
    assert not load_settings({"MODULES": "other"}).noitu_enabled
    assert not load_settings({"MODULES": "other"}).game_enabled


def test_production_binds_everywhere_and_logs_json():
    settings = load_settings({"TELEGRAM_BOT_TOKEN": "1:x", "GAME_BASE_URL": "https://a.b"})
    assert settings.bind_host == "0.0.0.0"
    assert settings.effective_log_format == "json"


def test_the_arena_data_dir_and_database_default_to_the_users_data_directory(tmp_path):
    settings = load_settings({"XDG_DATA_HOME": str(tmp_path)})
    assert settings.data_dir == tmp_path / "noitu"
    assert settings.arena_database_url == f"sqlite+aiosqlite:///{tmp_path}/noitu/arena.sqlite3"
    chosen = load_settings({"NOITU_DATA_DIR": str(tmp_path / "here"), "XDG_DATA_HOME": "/elsewhere"})
    assert chosen.data_dir == tmp_path / "here"
    assert chosen.arena_database_url.endswith(f"{tmp_path}/here/arena.sqlite3")


def test_the_arena_database_is_normalized_and_a_bad_one_is_named_without_its_password():
    settings = load_settings({"NOITU_ARENA_DATABASE": "postgresql://noitu:pw@db.local/arena"})
    assert settings.arena_database_url == "postgresql+asyncpg://noitu:pw@db.local/arena"
    with pytest.raises(SettingsError) as caught:
        load_settings({"NOITU_ARENA_DATABASE": "mysql://noitu:hunter2@db.local/arena"})
    (problem,) = caught.value.problems
    assert "NOITU_ARENA_DATABASE" in problem and "hunter2" not in problem


def test_the_ladder_is_driven_unless_turned_off() -> None:
    assert load_settings({}).arena_ladder is True
    assert load_settings({"NOITU_ARENA_LADDER": "1"}).arena_ladder is True
    assert load_settings({"NOITU_ARENA_LADDER": "0"}).arena_ladder is False
    assert load_settings({"NOITU_ARENA_LADDER": "off"}).arena_ladder is False
    with pytest.raises(SettingsError) as caught:
        load_settings({"NOITU_ARENA_LADDER": "maybe"})
    assert "NOITU_ARENA_LADDER" in str(caught.value)


def test_the_arena_files_stay_in_the_data_directory_unless_the_database_is_asked_for() -> None:
    assert load_settings({}).arena_files == "directory"
    assert load_settings({"NOITU_ARENA_FILES": " Database "}).arena_files == "database"
    assert load_settings({"NOITU_ARENA_FILES": "directory"}).arena_files == "directory"
    with pytest.raises(SettingsError) as caught:
        load_settings({"NOITU_ARENA_FILES": "s3"})
    (problem,) = caught.value.problems
    assert "NOITU_ARENA_FILES" in problem and "directory, database" in problem


def test_the_admin_chat_is_a_chat_id():
    assert load_settings({}).admin_chat is None
    assert load_settings({"NOITU_ADMIN_CHAT": " -1001234567890 "}).admin_chat == -1001234567890
    with pytest.raises(SettingsError) as refused:
        load_settings({"NOITU_ADMIN_CHAT": "@operators"})
    assert "NOITU_ADMIN_CHAT" in refused.value.problems[0]


def test_the_daily_game_s_short_name():
    assert load_settings({}).daily_game == "noitungay"  # unset: the default
    assert load_settings({"NOITU_DAILY_GAME": " "}).daily_game == ""  # set empty: off
    assert load_settings({"NOITU_DAILY_GAME": "hom_nay2"}).daily_game == "hom_nay2"
    for bad in ("noitu", "nối từ", "a-b", "x" * 65):
        with pytest.raises(SettingsError, match="NOITU_DAILY_GAME"):
            load_settings({"NOITU_DAILY_GAME": bad})
