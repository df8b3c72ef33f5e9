"""The dream run: claim, bundle, propose, merge, apply, sweep, render.

The entry point is :func:`dream.pipeline.run.run_dream`. The pipeline never imports a front
end (CLI, MCP, web); it raises domain exceptions from :mod:`dream.errors`.
"""
