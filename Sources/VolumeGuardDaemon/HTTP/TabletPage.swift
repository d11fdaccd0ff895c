import GuardProtocol

/// The page the HTTP listener serves at `/` for a paired tablet or phone: a large button that presses
/// (for a `trigger` or `operate` client), pause and resume (for `operate`), the daemon's state and the
/// last presses, live. Its token comes in the page's own URL (`/?token=...`, as `volume-guard pair`
/// prints it); the page sends it as `Authorization: Bearer` and in the event stream's URL. Plain HTML and
/// script with nothing fetched from elsewhere, for the kiosk browsers booths use.
enum TabletPage {
    /// The page.
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>volume-guard</title>
        \(style)
        </head>
        <body>
        <header><h1 id="name">volume-guard</h1><p id="state" data-state="connecting">connecting</p></header>
        <p id="refused" role="alert" hidden></p>
        <main>
        <button id="press" type="button" hidden>Press</button>
        <p id="operate" hidden><button id="pause" type="button">Pause</button> <button id="resume" type="button">Resume</button></p>
        <p id="result" aria-live="polite"></p>
        <h2>Last presses</h2>
        <ol id="presses"></ol>
        </main>
        <script>
        "use strict";
        const token = new URLSearchParams(location.search).get("token") || "";
        const headers = token ? { Authorization: "Bearer " + token } : {};
        const $ = (id) => document.getElementById(id);
        let events = null;

        function refused(message) {
          $("refused").textContent = message;
          $("refused").hidden = false;
          $("press").hidden = true;
          $("operate").hidden = true;
          setState("refused");
          if (events) { events.close(); events = null; }
        }

        function setState(state) {
          $("state").textContent = state;
          $("state").dataset.state = state;
        }

        async function explain(response) {
          let message = "";
          try { message = (await response.json()).message || ""; } catch (_) {}
          if (response.status === 401) {
            return "This device's token was refused: it was revoked or mistyped. Pair it again (volume-guard pair NAME) and open the new link." + (message ? " (" + message + ")" : "");
          }
          if (response.status === 429) { return "Too many wrong tokens came from this device: wait a minute, then reload."; }
          return message || ("The booth answered " + response.status + ".");
        }

        async function ask(path, method) {
          const response = await fetch(path, { method: method || "GET", headers, cache: "no-store" });
          if (response.status === 401 || response.status === 429) { refused(await explain(response)); return null; }
          if (!response.ok) { $("result").textContent = await explain(response); return null; }
          return response.json();
        }

        function show(line) {
          if (line.type === "state" || line.type === "subscribed") { if (line.state) setState(line.state); return; }
          if (line.type !== "press") return;
          const item = document.createElement("li");
          const what = line.direction || line.key || "press";
          item.textContent = "#" + line.seq + " " + what + " from " + (line.client || line.device || line.sink || line.source) + " at " + line.time.slice(11, 19);
          $("presses").prepend(item);
          while ($("presses").children.length > 10) $("presses").lastChild.remove();
        }

        function listen() {
          events = new EventSource("/events?gestures=false" + (token ? "&token=" + encodeURIComponent(token) : ""));
          events.onmessage = (event) => show(JSON.parse(event.data));
          events.onerror = async () => {
            setState("reconnecting");
            // A stream the booth closed for a revoked token comes back refused: say so, and stop retrying.
            const response = await fetch("/status", { headers, cache: "no-store" }).catch(() => null);
            if (response && (response.status === 401 || response.status === 429)) refused(await explain(response));
          };
        }

        async function start() {
          const status = await ask("/status");
          if (!status) return;
          setState(status.state);
          if (token) {
            const client = await ask("/client");
            if (!client) return;
            $("name").textContent = client.name;
            $("press").hidden = client.role === "watch";
            $("operate").hidden = client.role !== "operate";
          }
          listen();
        }

        $("press").addEventListener("click", async () => {
          const answer = await ask("/press?key=up", "POST");
          if (answer) $("result").textContent = "Pressed: #" + answer.seq;
        });
        $("pause").addEventListener("click", async () => { if (await ask("/pause", "POST")) $("result").textContent = "Paused"; });
        $("resume").addEventListener("click", async () => { if (await ask("/resume", "POST")) $("result").textContent = "Resumed"; });
        start();
        </script>
        </body>
        </html>

        """

    /// The page for a request to `/` that was refused: what went wrong, and what to do.
    static func refusal(_ error: RequestError) -> String {
        let advice: String =
            switch error.code {
            case .tokenRequired, .badToken:
                "This device's token was refused: it was revoked or mistyped. Pair it again (volume-guard pair NAME) and open the new link."
            case .tooManyAttempts: "Too many wrong tokens came from this device: wait a minute, then reload."
            default: "The booth refused this page."
            }
        return """
            <!doctype html>
            <html lang="en">
            <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>volume-guard: refused</title>\(style)</head>
            <body><header><h1>volume-guard</h1></header><p id="refused" role="alert">\(escaped(advice))</p><p>\(escaped(error.message))</p></body>
            </html>

            """
    }

    private static let style = """
        <style>
        [hidden] { display: none !important; }
        body { font-family: system-ui, sans-serif; margin: 0; padding: 1rem; background: #111; color: #eee; }
        header { display: flex; justify-content: space-between; align-items: baseline; }
        #state { font-weight: bold; } #state[data-state="guarding"] { color: #7d7; } #state[data-state="refused"] { color: #f77; }
        #refused { font-size: 1.4rem; color: #fbb; background: #411; padding: 1rem; border-radius: 0.5rem; }
        #press { display: block; width: 100%; min-height: 40vh; font-size: 3rem; border-radius: 1rem; border: 0; background: #2a7; color: #fff; }
        #press:active { background: #196; }
        #operate button { font-size: 1.4rem; padding: 0.6rem 1.2rem; }
        ol { padding-left: 1.5rem; }
        </style>
        """

    private static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }
}
