// Reads one Confer SSE stream with @microsoft/fetch-event-source, a browser
// SSE client library, and prints what it delivered as one JSON line:
// {"events": [{"event", "id"}...], "empty": N, "broken": N}.
// Usage: node read.cjs URL TOKEN [JSON-BODY]  (a body makes it a POST)
//
// The library is written for browsers: it reaches for `window` and
// `document`, which Node lacks.
globalThis.window = globalThis;
globalThis.document = { hidden: false, addEventListener() {}, removeEventListener() {} };
const { fetchEventSource } = require("@microsoft/fetch-event-source");

const [url, token, body] = process.argv.slice(2);
const events = [];
let empty = 0;
let broken = 0;

fetchEventSource(url, {
  method: body ? "POST" : "GET",
  headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  body: body || undefined,
  openWhenHidden: true,
  async onopen(response) {
    if (!response.ok) throw new Error(`status ${response.status}`);
  },
  onmessage(message) {
    if (message.data === "") {
      empty += 1;
      return;
    }
    try {
      JSON.parse(message.data);
    } catch {
      broken += 1;
    }
    events.push({ event: message.event, id: message.id });
  },
  onerror(error) {
    throw error; // no retries: report what happened
  },
})
  .then(() => console.log(JSON.stringify({ events, empty, broken })))
  .catch((error) => {
    console.log(JSON.stringify({ error: String(error) }));
    process.exit(1);
  });
