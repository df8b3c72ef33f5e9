// Dream for Pi (installed by `dream install pi`; `dream uninstall pi` removes it).
//
// Pi has no hook file; this extension calls `dream hook --agent pi EVENT` (the `dream` on
// PATH) with a Claude Code-shaped payload at Pi's lifecycle events, and gives the model
// what the hook prints (hook JSON, hookSpecificOutput.additionalContext):
//
//   session_start      -> SessionStart (pending automation wakes); `dream brief` for the
//                         brief
//   before_agent_start -> UserPromptSubmit (pending wakes); the brief is added to the
//                         system prompt of every turn, wakes once as a message
//   agent_end          -> Stop (reports context use; a fire here waits for the next prompt)
//   session_shutdown   -> SessionEnd (collects the session file into Dream's spool)
//
// A failing or missing `dream` never disturbs Pi: every call is wrapped, 30 s at most.
import { execFileSync } from "node:child_process";

const BRIEF_SCOPE = "__DREAM_BRIEF_SCOPE__";

function readBrief(): string | undefined {
  try {
    const out = JSON.parse(execFileSync("dream", ["brief", `--${BRIEF_SCOPE}`, "--json"], {
      encoding: "utf8", timeout: 30000, stdio: ["ignore", "pipe", "ignore"],
    }));
    return out?.text?.trim() ? `Dream memory brief (kept by Dream):\n\n${out.text}` : undefined;
  } catch {
    return undefined;
  }
}

function hook(event: string, payload: Record<string, unknown>): string | undefined {
  const args = ["hook", "--agent", "pi", event];
  try {
    const out = execFileSync("dream", args, {
      input: JSON.stringify({ ...payload, hook_event_name: event }),
      encoding: "utf8", timeout: 30000, stdio: ["pipe", "pipe", "ignore"],
    });
    const text = JSON.parse(out || "null")?.hookSpecificOutput?.additionalContext;
    return typeof text === "string" && text.trim() ? text : undefined;
  } catch {
    return undefined;
  }
}

export default function (pi: any) {
  let brief: string | undefined;
  let wakes: string[] = [];
  const base = (ctx: any) => ({
    session_id: ctx.sessionManager?.getSessionId?.(),
    transcript_path: ctx.sessionManager?.getSessionFile?.(),
    cwd: ctx.cwd,
  });

  pi.on("session_start", async (event: any, ctx: any) => {
    brief = readBrief();
    const wake = hook("SessionStart", { ...base(ctx), source: event?.reason });
    if (wake) wakes.push(wake);   // told at the next turn
  });

  pi.on("before_agent_start", async (event: any, ctx: any) => {
    const wake = hook("UserPromptSubmit", { ...base(ctx), prompt: event?.prompt });
    if (wake) wakes.push(wake);
    const result: Record<string, unknown> = {};
    if (brief) result.systemPrompt = `${event.systemPrompt}\n\n${brief}`;
    if (wakes.length) {
      result.message = { customType: "dream", content: wakes.join("\n\n"), display: true };
      wakes = [];
    }
    return Object.keys(result).length ? result : undefined;
  });

  pi.on("agent_end", async (_event: any, ctx: any) => {
    hook("Stop", base(ctx));
  });

  pi.on("session_shutdown", async (_event: any, ctx: any) => {
    hook("SessionEnd", base(ctx));
  });
}
