"""A store URL in a message shows no part of its password, even one holding a raw ``@``.

Issue 32's case: ``postgresql://u:SEC@RET@127.0.0.1:1/db`` was printed ``u:***@RET@127.0.0.1``
(SQLAlchemy's parser ends the password at the first ``@``): the user info is cut at the LAST ``@``
of the authority.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.store._engine import safe_url

runner = CliRunner()


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:SEC@RET@127.0.0.1:1/db", "postgresql://u:***@127.0.0.1:1/db"),
        ("postgresql+asyncpg://u:pw@h/db", "postgresql+asyncpg://u:***@h/db"),
        ("postgresql://u@h:5432/db", "postgresql://u@h:5432/db"),  # a user name alone
        ("postgresql://h/db?application_name=a@b", "postgresql://h/db?application_name=a%40b"),  # an "@" past the authority
        ("sqlite:///data/a.db", "sqlite:///data/a.db"),
        ("postgresql://u:a@b@c@[::1]:5432/db", "<unparseable URL>"),
    ],
)
def test_safe_url(url: str, shown: str) -> None:
    assert safe_url(url) == shown


_PART = st.text(alphabet="!$&+,;=~@XYZ", min_size=1, max_size=12)  # none of these is in the rest of the URL or the mask


@given(user=st.text(alphabet="abcdefgh", min_size=1, max_size=6), password=_PART.filter(lambda p: "@" in p or len(p) > 3))
def test_no_piece_of_a_password_with_an_at_is_shown(user: str, password: str) -> None:
    shown = safe_url(f"postgresql://{user}:{password}@db.example:5432/app")
    pieces = [p for p in password.split("@") if len(p) >= 3]
    assert all(p not in shown for p in pieces), shown


def test_the_store_command_prints_the_masked_url() -> None:
    res = runner.invoke(app, ["store", "list", "--url", "postgresql://u:SEC@RET@127.0.0.1:1/db"])
    assert res.exit_code != 0
    assert "SEC" not in res.output and "RET" not in res.output and "Traceback" not in res.output
    assert "u:***@127.0.0.1:1/db" in res.output
