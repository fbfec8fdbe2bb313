"""Configuration: defaults, branchgraph.toml, environment precedence, clear errors."""

from pathlib import Path

import pytest

from branchgraph.core.config import Config
from branchgraph.core.errors import ConfigError


def test_defaults_mean_local_services(tmp_path: Path):
    config = Config.load(tmp_path, environ={})
    assert config.neo4j_uri is None  # the managed Neo4j
    assert config.database_url is None
    assert config.embedder == "local"
    assert config.index_dir_for(tmp_path) == tmp_path / ".branchgraph"


def test_environment_overrides_toml(tmp_path: Path):
    (tmp_path / "branchgraph.toml").write_text('neo4j_uri = "bolt://toml:1"\nembedder = "none"\nmax_file_bytes = 5\n')
    config = Config.load(tmp_path, environ={"BRANCHGRAPH_NEO4J_URI": "bolt://env:2", "OPENAI_API_KEY": "sk-x"})
    assert config.neo4j_uri == "bolt://env:2"
    assert config.embedder == "none"
    assert config.max_file_bytes == 5
    assert "sk-x" not in repr(config)


def test_unknown_toml_setting_is_named(tmp_path: Path):
    (tmp_path / "branchgraph.toml").write_text('neo4j_url = "x"\n')
    with pytest.raises(ConfigError, match="neo4j_url"):
        Config.load(tmp_path, environ={})


def test_bad_number_is_a_config_error(tmp_path: Path):
    with pytest.raises(ConfigError, match="max_file_bytes"):
        Config.load(tmp_path, environ={"BRANCHGRAPH_MAX_FILE_BYTES": "lots"})
