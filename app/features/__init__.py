"""Parts of pages that own session state and may start jobs: the live view and its
controls, node locking (the form, the shift, the paint, the effect), the study views, and
the number fields (their typed text kept per session). Screens compose them; components
(``app/components``) stay pure: data in, elements out."""
