"""Review dreams: proposals a person accepts or rejects, promotion, export and handoffs.

Front ends call :mod:`dream.review.service` (``start``, ``show``, ``list_proposals``,
``accept``, ``reject``, ``close``) and :func:`dream.review.handoff.prepare`.
"""
