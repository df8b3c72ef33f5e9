"""Detection: one detector per finding, over the one spool item type.

Each module reads spool items (:class:`~dream.items.Item`) in the order they
were said and returns typed findings (:class:`~dream.detect.finding.Finding`) with the ids
of the items they rest on:

- :mod:`~dream.detect.directives`: directives and corrections, read in the words of
  :mod:`~dream.detect.wording` (a sentence's lead-in, content words and rejected terms);
  :mod:`~dream.detect.grouping`: the review's grouping of sentences that say the same rule;
- :mod:`~dream.detect.preferences`: preferences and things to remember;
- :mod:`~dream.detect.commands`: shell commands that ran, and repeated procedures;
- :mod:`~dream.detect.howto`: how to work here (install, build, test, lint, format, run
  and release commands that worked; :mod:`~dream.detect.purpose`: what a command is for;
  :mod:`~dream.detect.scripts`: the scripts a project declares);
- :mod:`~dream.detect.failures`: failures, named by their root-cause line so that repeats
  collide;
- :mod:`~dream.detect.pitfalls`: known pitfalls (repeated shell failures, one per cause
  whatever tool ran them, with the step that fixed them, or what the user said about them:
  :mod:`~dream.detect.remarks`), shown through :mod:`~dream.detect.shell` (a command and
  its output as a note shows them);
- :mod:`~dream.detect.plans` (with :mod:`~dream.detect.plan_words`): plans and events;
  :mod:`~dream.detect.plan_targets`: which plan a message is about;
  :mod:`~dream.detect.plan_events`: the events written at the end of a call, each only
  when :mod:`~dream.detect.confidence` finds its evidence defends it (else a question);
- :mod:`~dream.detect.todos`: to-dos and their completion;
- :mod:`~dream.detect.facts`: standing facts and facts about people;
- :mod:`~dream.detect.rules`: a coding session's directives and corrections as durable
  rules, grouped (each written by :mod:`~dream.detect.rule_text`);
  :mod:`~dream.detect.statements` reads statements for the run;
- :mod:`~dream.detect.decisions`: answers the user gave to the agent's questions;
- :mod:`~dream.detect.threads`: open threads (unanswered last requests);
- :mod:`~dream.detect.noise`: pastes, prompts, spinners and swearing kept out of notes;
  :mod:`~dream.detect.spelling`: a mistyped word spelled as the session spells it;
- :mod:`~dream.detect.cues`: German, French and Spanish cue words of plans and facts, read
  as their English equivalents (dates and times: :mod:`dream.kinds.dates`).

The dream run's ``rules`` provider (:mod:`dream.models.rules`) adapts findings to the typed
diff; the review passes (:mod:`dream.passes`) turn the same findings into proposals. This
package imports only :mod:`dream.kinds` (text and keys) and nothing above it.
"""

from dream.detect.finding import Finding
from dream.items import Item

__all__ = ["Finding", "Item"]
