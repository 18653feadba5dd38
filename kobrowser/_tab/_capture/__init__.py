"""What a tab captures of its page: screenshots, PDF, element boxes, ids drawn.

``_screenshot`` makes screenshots (plain, full page, one element, annotated)
and PDFs, ``_geometry`` and ``_layout`` place every element of a snapshot, and
``_annotate`` draws the ids on an image. This package re-exports nothing.
"""
