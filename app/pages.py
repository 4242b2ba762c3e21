"""The app's pages (``st.navigation`` entries): built by ``main.py`` on every run and handed
to :mod:`app.nav`, so the screens link to each other through ``nav`` without importing
one another. The page modules live in ``app/screens/``, not ``app/pages/``: a ``pages/``
folder next to the main script turns on Streamlit's old file-based navigation, and AppTest
then renders nothing after the first run."""

from __future__ import annotations

import streamlit as st

from app.screens import charts, compare, explore, export, practice, reports, setup, solve


def build() -> dict[str, st.Page]:
    """The pages by name, in the sidebar's order (made afresh on every run)."""
    return {
        "setup": st.Page(setup.render, title="Set up", icon=":material/tune:", url_path="setup"),
        "solve": st.Page(
            solve.render,
            title="Solve",
            icon=":material/play_arrow:",
            url_path="solve",
            default=True,
        ),
        "explore": st.Page(
            explore.render, title="Explore", icon=":material/account_tree:", url_path="explore"
        ),
        "charts": st.Page(
            charts.render, title="Chart by stack", icon=":material/grid_on:", url_path="charts"
        ),
        "practice": st.Page(
            practice.render, title="Practice", icon=":material/school:", url_path="practice"
        ),
        "compare": st.Page(
            compare.render,
            title="Compare",
            icon=":material/compare_arrows:",
            url_path="compare",
        ),
        "export": st.Page(
            export.render, title="Export & save", icon=":material/save:", url_path="export"
        ),
        "reports": st.Page(
            reports.render, title="Reports", icon=":material/analytics:", url_path="reports"
        ),
    }
