"""The app's pages (``st.navigation`` entries), importable by pages that link to each other.

Made afresh on every run. The page modules live in ``app/screens/``, not ``app/pages/``: a
``pages/`` folder next to the main script turns on Streamlit's old file-based navigation, and
AppTest then renders nothing after the first run."""

from __future__ import annotations

import streamlit as st


def pages() -> dict[str, st.Page]:
    from app.screens import charts, compare, explore, export, practice, reports, setup, solve

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


def link(name: str, label: str, icon: str | None = None) -> None:
    st.page_link(pages()[name], label=label, icon=icon)
