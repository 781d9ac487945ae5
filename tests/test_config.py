"""Configuration precedence: unitrag.toml < UNITRAG_* environment < CLI overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from unitrag.config import DEFAULT_EMBEDDER, NUMBER_LIMITS, Config, load_config
from unitrag.rag.arguments import MAX_K
from unitrag.errors import ContentInvalid, UserError


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder, so the repository's own unitrag.toml is not read."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def toml(folder: Path, text: str, name: str = "unitrag.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_file_or_env(cwd):
    config = load_config(env={})
    assert config == Config()
    assert config.embedder == DEFAULT_EMBEDDER
    assert config.content_dir == Path("content") and config.batch_size == 16


def test_file_overrides_defaults(cwd):
    toml(cwd, '[unitrag]\nembedder = "st:some-model"\nbatch_size = 4\ncontent_dir = "kb"\n')
    config = load_config(env={})
    assert config.embedder == "st:some-model"
    assert config.batch_size == 4
    assert config.content_dir == Path("kb") and isinstance(config.content_dir, Path)
    assert config.artifact == Config().artifact  # untouched keys keep their defaults


def test_top_level_keys_without_section(cwd):
    toml(cwd, "chunk_tokens = 100\n")
    assert load_config(env={}).chunk_tokens == 100


def test_top_level_keys_beside_other_tables(cwd):
    toml(cwd, 'chunk_tokens = 100\n\n[serve]\nport = 9000\n\n[publish]\nhnsw_m = 16\n')
    assert load_config(env={}).chunk_tokens == 100  # [serve] and [publish] belong to their own loaders


def test_precedence_file_env_cli(cwd):
    toml(cwd, '[unitrag]\nbatch_size = 4\nembedder = "file"\nartifact = "file.duckdb"\nchunk_tokens = 100\n')
    env = {"UNITRAG_BATCH_SIZE": "8", "UNITRAG_EMBEDDER": "env", "UNITRAG_ARTIFACT": "env.duckdb"}
    config = load_config(env=env, batch_size=32, embedder=None)
    assert config.batch_size == 32  # CLI beats env and file
    assert config.embedder == "env"  # a None CLI flag does not override
    assert config.artifact == Path("env.duckdb")  # env beats file
    assert config.chunk_tokens == 100  # file beats default


def test_env_values_are_coerced(cwd):
    config = load_config(env={"UNITRAG_CHUNK_TOKENS": "256", "UNITRAG_CACHE_DIR": "/tmp/c"})
    assert config.chunk_tokens == 256
    assert config.cache_dir == Path("/tmp/c")


def test_unrelated_env_vars_are_ignored(cwd):
    config = load_config(env={"UNITRAG_NOT_A_KEY": "x", "OTHER_BATCH_SIZE": "3", "BATCH_SIZE": "3"})
    assert config == Config()


def test_explicit_path(cwd):
    path = toml(cwd, "[unitrag]\nbatch_size = 2\n", name="other.toml")
    assert load_config(path, env={}).batch_size == 2


def test_explicit_path_missing(cwd):
    with pytest.raises(UserError, match="not found"):
        load_config(cwd / "nope.toml", env={})
    with pytest.raises(UserError) as raised:  # an attacker's path with an escape sequence: shown escaped, not raw
        load_config(cwd / "\x1b[31mx.toml", env={})
    assert "\x1b" not in str(raised.value) and "\\x1b[31mx.toml" in str(raised.value)


@pytest.mark.parametrize("value", ["abc", "0", "-3", "1.5", ""])
def test_bad_int_in_env(cwd, value):
    with pytest.raises(UserError, match="batch_size"):
        load_config(env={"UNITRAG_BATCH_SIZE": value})


def test_bad_int_in_file(cwd):
    toml(cwd, '[unitrag]\nchunk_tokens = "many"\n')
    with pytest.raises(UserError, match="chunk_tokens.*expected a whole number in the config file, got the string"):
        load_config(env={})


def test_bad_int_on_cli(cwd):
    with pytest.raises(UserError, match="batch_size"):
        load_config(env={}, batch_size=0)


def test_unknown_key_in_toml(cwd):
    toml(cwd, "[unitrag]\nbatch_sise = 4\n")
    with pytest.raises(UserError, match="unknown config key 'batch_sise'"):
        load_config(env={})


def test_unknown_cli_override(cwd):
    with pytest.raises(UserError, match="unknown config key 'colour'"):
        load_config(env={}, colour="red")


@pytest.mark.parametrize("text", ["[unitrag\nbatch_size = 4\n", "batch_size = = 4\n", 'embedder = "unterminated\n'])
def test_invalid_toml(cwd, text):
    toml(cwd, text)
    with pytest.raises(UserError, match="not valid TOML"):
        load_config(env={})


def test_toml_not_utf8(cwd):
    (cwd / "unitrag.toml").write_bytes(b'embedder = "caf\xe9"\n')
    with pytest.raises(UserError, match="not valid TOML"):
        load_config(env={})


def test_with_overrides_returns_a_copy():
    base = Config()
    changed = base.with_overrides(batch_size="7", embedder=None)
    assert changed.batch_size == 7 and base.batch_size == 16
    assert changed.embedder == base.embedder


def test_user_errors():
    err = ContentInvalid(["a", "b"])
    assert isinstance(err, UserError)
    assert err.problems == ["a", "b"]
    assert str(err) == "2 problem(s) in the content; nothing was written"


@pytest.mark.parametrize("value", ["16.7", "true"])
def test_non_integer_toml_number_is_rejected(cwd, value):
    toml(cwd, f"[unitrag]\nbatch_size = {value}\n")
    with pytest.raises(UserError):
        load_config(env={})


def test_bad_path_value_message(cwd):
    toml(cwd, "[unitrag]\ncontent_dir = 5\n")
    with pytest.raises(UserError) as exc:
        load_config(env={})
    assert "whole number" not in str(exc.value)


def test_the_input_bounds_are_settings(cwd):
    """Issue 22: the prompt budget and the registry file limit, set like any key (and refused when not positive)."""
    assert (Config().max_prompt_chars, Config().max_file_bytes) == (100_000, 5_000_000)
    config = load_config(env={"UNITRAG_MAX_PROMPT_CHARS": "250000", "UNITRAG_MAX_FILE_BYTES": "1000"})
    assert (config.max_prompt_chars, config.max_file_bytes) == (250_000, 1_000)
    with pytest.raises(UserError, match="max_prompt_chars"):
        load_config(env={"UNITRAG_MAX_PROMPT_CHARS": "0"})


def test_the_knowledge_bases_identity_from_the_file_and_the_environment(cwd):
    toml(cwd, '[unitrag]\nname = "Garden  club"\ndescription = "Growing\\nvegetables."\nlanguages = ["zh", "en"]\n')
    config = load_config(env={})
    assert (config.name, config.description, config.languages) == ("Garden club", "Growing vegetables.", ("zh", "en"))
    assert load_config(env={"UNITRAG_LANGUAGES": " en "}).languages == ("en",)  # a string from the environment


def test_a_name_and_description_per_language_from_the_file_and_the_environment(cwd):
    from unitrag.config import identity_record

    toml(cwd, '[unitrag]\nname = "Metro help"\nname_zh = " 地铁  帮助 "\n')
    config = load_config(env={"UNITRAG_DESCRIPTION_ZH": "乘客问答。"})
    assert (config.name_zh, config.description_zh, config.name_en) == ("地铁 帮助", "乘客问答。", "")
    assert identity_record(config)["localized"] == {"zh": {"name": "地铁 帮助", "description": "乘客问答。"}}


@pytest.mark.parametrize("line, message", [
    ("name_zh = 3", "'name_zh': expected text"),
    (f'description_en = "{"x" * 501}"', "'description_en': at most 500 characters"),
    ('name_zh = "a\\u0007b"', "'name_zh': expected text without control characters"),
    ("languages = []", "expected language codes"),
    ("languages = [1]", "expected language codes"),
    ('languages = ["en", "de"]', "unknown language 'de'"),
    ('name = ""', "needs a name"),
    ("description = 3", "'description': expected text"),
    (f'name = "{"x" * 81}"', "at most 80 characters"),
])
def test_a_bad_identity_is_one_error_naming_the_key(cwd, line, message):
    toml(cwd, f"[unitrag]\n{line}\n")
    with pytest.raises(UserError, match=message):
        load_config(env={})


def test_a_config_that_is_a_folder_is_one_error_not_a_traceback(cwd):
    (cwd / "conf").mkdir()
    with pytest.raises(UserError, match="config file conf is a folder"):
        load_config(Path("conf"))


def test_a_config_that_is_a_device_is_refused_before_any_read(cwd):
    with pytest.raises(UserError, match="is not a regular file"):
        load_config(Path("/dev/null"))


def test_a_config_over_the_size_cap_is_refused_unread(cwd):
    from unitrag.config import MAX_CONFIG_BYTES

    path = toml(cwd, "# a comment\n" * (MAX_CONFIG_BYTES // 12 + 1))  # valid TOML, just too large
    with pytest.raises(UserError, match="larger than"):
        load_config(path)
    with pytest.raises(UserError, match="larger than"):
        load_config()  # ./unitrag.toml read the same way


# -- upper bounds (audit F7 e) ----------------------------------------------------------------------


def test_max_question_chars_cannot_be_configured_away(cwd):
    toml(cwd, "[unitrag]\nmax_question_chars = 99999999999999999999999\n")  # the audit's value: build rc 0 before
    with pytest.raises(UserError, match=r"^config key 'max_question_chars': expected a positive whole number \(1 to "
                                        r"32,000: .*\), got 99999999999999999999999$"):
        load_config(env={})


@pytest.mark.parametrize("key", sorted(NUMBER_LIMITS))
def test_every_number_takes_its_bound_and_refuses_past_it(cwd, key):
    bound = NUMBER_LIMITS[key][0]
    assert getattr(load_config(env={}, **{key: bound}), key) == bound
    past = bound + 1 if isinstance(bound, int) else bound * 1.5
    span = f"1 to {bound:,}" if isinstance(bound, int) else f"above 0, at most {bound:,.0f}"
    for source in ({"env": {f"UNITRAG_{key.upper()}": str(past)}}, {"env": {}, key: past}, {"env": {}, key: 0}):
        with pytest.raises(UserError, match=rf"^config key {key!r}: expected a positive \w+ number \({span}: "):
            load_config(**source)  # past the bound or under it: one message, the whole range


def test_every_number_setting_has_a_bound_and_final_k_is_searchs_own():
    numbers = {name for name, kind in ((f, Config.__dataclass_fields__[f].type) for f in Config.__dataclass_fields__)
               if kind in ("int", "float", int, float)}
    assert numbers == set(NUMBER_LIMITS)
    assert NUMBER_LIMITS["final_k"][0] == MAX_K  # a search's k is 1 to MAX_K: final_k is its default


@pytest.mark.parametrize("key, value, message", [
    ("max_question_chars", "²", "expected a positive whole number (1 to 32,000: "),  # isdigit() but not int(): a traceback before
    ("max_question_chars", "9" * 5000, "(1 to 32,000: "),  # int() of it raised ValueError (4,300 digits): a traceback
    ("final_k", " 7 ", None),
    ("boost_rule", "inf", "expected a positive finite number (above 0, at most 100: "),
    ("boost_rule", "nan", "expected a positive finite number"),
    ("boost_rule", "1e300", "(above 0, at most 100: "),
    ("boost_rule", "1e999", "expected a positive finite number"),  # float() of it is inf
])
def test_numbers_from_the_environment_are_one_line(cwd, key, value, message):
    if message is None:
        assert getattr(load_config(env={f"UNITRAG_{key.upper()}": value}), key) == 7
        return
    with pytest.raises(UserError) as raised:
        load_config(env={f"UNITRAG_{key.upper()}": value})
    assert str(raised.value).startswith(f"config key {key!r}: ") and message in str(raised.value)
    assert len(str(raised.value)) < 300


@pytest.mark.parametrize("line", ["boost_rule = inf", "boost_topic = nan", "max_question_chars = " + "9" * 5000])
def test_numbers_from_the_file_are_one_line(cwd, line):
    toml(cwd, f"[unitrag]\n{line}\n")
    with pytest.raises(UserError) as raised:  # a 5,000-digit integer: a ValueError from tomllib, a traceback before
        load_config(env={})
    assert len(str(raised.value)) < 300 and "sys.set_int_max_str_digits" not in str(raised.value)


def test_a_number_too_long_to_show_is_named_by_its_size():
    with pytest.raises(UserError, match=r"\(1 to 32,000: .*got a number of about 5,000 digits"):
        Config().with_overrides(max_question_chars=10 ** 5000)


def test_an_artifact_name_the_file_system_cannot_take_is_refused_naming_the_option(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Audit F7: a name over 255 bytes (or an artifact name with no room for DuckDB's ``.wal``) is one UserError."""
    monkeypatch.chdir(tmp_path)
    for name in ("k" * 256 + ".duckdb", "k" * 245 + ".duckdb", "ü" * 130 + "/kb.duckdb"):
        with pytest.raises(UserError, match=r"^config key 'artifact' .*bytes, more than the 25[15]"):
            load_config(None, env={}, artifact=Path("dist") / name)
    assert load_config(None, env={}, artifact=Path("dist") / ("k" * 244 + ".duckdb")).artifact.name == "k" * 244 + ".duckdb"


def test_a_misspelled_setting_in_the_environment_is_said_not_silently_ignored(cwd, caplog):
    """An attacker's UNITRAG_RESTRICTED_ROLES was ignored without a word, while a wrong key in unitrag.toml is refused."""
    import logging

    with caplog.at_level(logging.WARNING, logger="unitrag"):
        load_config(env={"UNITRAG_RESTRICTED_ROLES": "staff", "UNITRAG_LLM_API_KEY": "k", "UNITRAG_SERVE_PORT": "1",
                         "UNITRAG_SOMETHING_ELSE": "x"})
    said = [r.getMessage() for r in caplog.records]
    assert said == ["environment variable UNITRAG_RESTRICTED_ROLES is not a setting, and is ignored: did you mean "
                    "UNITRAG_RESTRICTED_ROLE?"]


# -- the file's tables and its values' TOML types ---------------------------------------------------------


@pytest.mark.parametrize("text, says", [
    ("[unitrag]\nbatch_size = 4\n[servve]\nport = 9000\n",
     "unknown table [servve]: did you mean [serve]? (the tables are [unitrag], [serve], [publish])"),
    ("chunk_tokens = 100\n[unitrg]\nbatch_size = 4\n", "unknown table [unitrg]: did you mean [unitrag]?"),
    ("[tool.black]\nline-length = 88\n", "unknown table [tool]: (the tables are [unitrag], [serve], [publish])"),
    ('llm = "litellm:x/y"\n[unitrag]\nbatch_size = 4\n', "'llm' is outside any table, and no loader reads it: move "
                                                         "it under [unitrag]"),
    ("unitrag = 5\n", "[unitrag] must be a table"),
    ("[[serve]]\nport = 1\n", "[serve] must be a table"),
])
def test_a_table_no_loader_reads_is_one_error_naming_it(cwd, text, says):
    """`[servve]` (a typo of [serve]) was ignored without a word, while a wrong key inside a table is refused."""
    toml(cwd, text)
    with pytest.raises(UserError) as raised:
        load_config(env={})
    assert str(raised.value).startswith(f"unitrag.toml: {says}"), str(raised.value)


ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("file", ["unitrag.toml", "unitrag/scaffold/template/unitrag.toml",
                                  *sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("examples/*/unitrag.toml"))])
def test_the_config_files_unitrag_ships_and_writes_load(file):
    assert load_config(ROOT / file, env={}).name


@pytest.mark.parametrize("line, says", [
    ('batch_size = "16"', "config key 'batch_size' (unitrag.toml): expected a whole number in the config file, got the "
                          "string '16': write it without quotes"),
    ("batch_size = 16.0", "config key 'batch_size' (unitrag.toml): expected a whole number in the config file, got a "
                          "number"),
    ('boost_rule = "1.5"', "config key 'boost_rule' (unitrag.toml): expected a number in the config file, got the string"),
    ('sparse = "false"', "config key 'sparse' (unitrag.toml): expected true or false in the config file, got the string"),
    ('languages = "en,zh"', "config key 'languages' (unitrag.toml): expected a list in the config file, got the string "
                            "'en,zh': write a list, even of one"),
])
def test_a_value_of_the_wrong_toml_type_is_one_line_naming_the_key_and_the_type(cwd, line, says):
    """`batch_size = "16"` was read as the environment's text is: the file's types mean something."""
    toml(cwd, f"[unitrag]\n{line}\n")
    with pytest.raises(UserError) as raised:
        load_config(env={})
    assert str(raised.value).startswith(says), str(raised.value)


def test_the_environments_text_is_still_parsed_as_its_settings_type(cwd):
    toml(cwd, "[unitrag]\nbatch_size = 8\nboost_rule = 2\nsparse = false\n")
    config = load_config(env={"UNITRAG_CHUNK_TOKENS": "300", "UNITRAG_TRANSLATE_QUERIES": "no",
                              "UNITRAG_LANGUAGES": "zh", "UNITRAG_BOOST_TOPIC": "1.25"})
    assert (config.batch_size, config.boost_rule, config.sparse) == (8, 2.0, False)
    assert (config.chunk_tokens, config.translate_queries, config.languages, config.boost_topic) == (
        300, False, ("zh",), 1.25)
