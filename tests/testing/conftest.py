import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _quiet_user_project(request: pytest.FixtureRequest) -> None:
    """Give pytester projects an ini so pytest-asyncio does not warn about its default."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester").makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
