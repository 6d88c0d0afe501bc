// What the examples' apps share, added to `globalThis.ExtApps` beside the official App class
// (examples/apps/page.rs inlines this script after the class, before the app's own script).
const { applyDocumentTheme, applyHostStyleVariables, applyHostFonts } = globalThis.ExtApps;

Object.assign(globalThis.ExtApps, {
  /** The host's theme, CSS variables (colors, fonts, radii) and font faces on this document. */
  applyHostContext(context) {
    if (!context) return;
    if (context.theme) applyDocumentTheme(context.theme);
    if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
    if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
  },

  /** The text blocks of a tool result, joined by newlines. */
  textOf(result) {
    return (result.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
  },

  /**
   * A status setter: `(state, text)` sets body[data-state] (loading, ready, running, done,
   * error), the text of `line` (with the class `error` for errors), and disables `button`
   * while running.
   */
  statusLine(line, button) {
    return (state, text) => {
      document.body.dataset.state = state;
      line.textContent = text;
      line.classList.toggle("error", state === "error");
      button.disabled = state === "running";
    };
  },

  /**
   * Connects `app` to the host (ui/initialize), follows the host's context, and says `ready`
   * unless the tool's input already moved the app on. Set the app's handlers before.
   */
  async start(app, setStatus, readyText) {
    app.onhostcontextchanged = (context) => globalThis.ExtApps.applyHostContext(context);
    try {
      await app.connect();
      globalThis.ExtApps.applyHostContext(app.getHostContext());
      if (document.body.dataset.state === "loading") setStatus("ready", readyText);
    } catch (e) {
      setStatus("error", `Could not connect to the host: ${e?.message ?? e}`);
    }
  },
});
