"""Build-time generation of the website's pages from the code (the MkDocs hook lives here).

Pages that hold a number, a map or a picture of play are written by these modules from the
class table, the map files, `exports/` and games played on the NumPy engine, so the site can
never disagree with the code. `hook.py` is the file `mkdocs.yml` names; the other modules
each write one kind of page and can be imported and tested on their own.
"""
