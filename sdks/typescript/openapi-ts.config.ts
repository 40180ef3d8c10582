// The generator's settings (sdks.md): the fetch client, the SDK functions
// named by each operation's operationId, and every call throwing on a
// non-2xx answer (index.ts turns it into a ConferError).
import { defineConfig } from "@hey-api/openapi-ts";

export default defineConfig({
  input: "../openapi.json",
  output: { path: "src/generated" },
  plugins: [
    "@hey-api/client-fetch",
    "@hey-api/typescript",
    { name: "@hey-api/sdk" },
  ],
});
