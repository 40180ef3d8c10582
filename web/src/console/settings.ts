// Org settings (`#/settings`): the sites allowed to embed the org's public
// chats, one origin per line.

import { explain, get, send } from "./api";
import { form, h, labelled } from "./dom";
import type { ViewContext } from "./main";

interface OrgSettings {
  allowed_embed_domains: string[];
  updated_at: string | null;
}

/** `#/settings`. */
export async function settingsView({ main, say }: ViewContext): Promise<void> {
  const settings = await get<OrgSettings>("/api/orgs/settings");
  const domains = h("textarea", { name: "domains", rows: "6" });
  domains.value = settings.allowed_embed_domains.join("\n");
  main.replaceChildren(
    h("h2", {}, "Settings"),
    form(
      "Embed domains",
      [labelled("Sites that may embed the public chats", domains, "One origin per line: https://shop.example.com or https://*.example.com.")],
      "Save domains",
      (values) => {
        const list = String(values.get("domains") ?? "")
          .split(/\s+/)
          .filter(Boolean);
        void send<OrgSettings>("POST", "/api/orgs/settings", { allowedEmbedDomains: list })
          .then((saved) => {
            domains.value = saved.allowed_embed_domains.join("\n");
            say("Embed domains saved.");
          })
          .catch((error: unknown) => say(explain(error)));
      },
    ),
  );
}
