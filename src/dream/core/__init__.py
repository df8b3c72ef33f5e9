"""The use-cases every front end calls: the CLI, the MCP server, the web page, the API and
the benchmarks parse their input, call one function here and print what it returns.

- :mod:`dream.core.projects`: ``init``, ``status`` (the current project comes from
  :meth:`dream.app.App.current_project`, the one resolver of key, name, store and root),
  ``list_projects`` and ``move_items`` (the project keys collected items carry);
- :mod:`dream.core.dreams`: ``run``, ``correct``, ``decide`` (promote or discard a run left
  for review), ``show_run``, ``list_runs``;
- :mod:`dream.core.revert`: ``revert`` a commit or a run;
- :mod:`dream.core.review`: ``accept`` and ``reject`` review proposals;
- :mod:`dream.core.notes`: the notes service for the current project and its open dream;
- :mod:`dream.core.memory`: memory as a person reads it (scopes, lists, one record with its
  evidence and history, search, sessions), for the web page.

Every function that changes a store takes that store's write lock
(:func:`dream.store.lock.write_lock`) and re-checks what it acts on under it. The package
imports nothing at import time, so a command loads only the use-case it runs.
"""
