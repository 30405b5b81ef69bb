import { html, raw } from "hono/html";

/**
 * The docs page: the OpenAPI document rendered on the server as plain HTML, so it needs no script
 * and no CDN (agents and machines without network access read it too).
 */
interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; schema?: unknown; description?: string }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}

interface Document {
  info: { title: string; version: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

function schemaText(schema: unknown): string {
  return JSON.stringify(schema, null, 2);
}

export function renderDocsPage(document: unknown) {
  const doc = document as Document;
  const operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ path, method, op: item[method] as Operation })),
  );
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${doc.info.title}</title>
    <style>
      body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }
      .op { border: 1px solid #ddd; border-radius: 6px; margin: 1rem 0; padding: 0.5rem 1rem; }
      .method { font-weight: bold; text-transform: uppercase; margin-right: 0.5rem; }
      pre { background: #f6f6f6; padding: 0.5rem; overflow-x: auto; font-size: 0.8rem; }
      nav a { display: block; font-family: monospace; }
    </style>
  </head>
  <body>
    <h1>${doc.info.title} <small>${doc.info.version}</small></h1>
    <p>${doc.info.description ?? ""}</p>
    <p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</p>
    <nav>
      ${operations.map(({ path, method }) => html`<a href="#${method}-${path}">${method.toUpperCase()} ${path}</a>`)}
    </nav>
    ${operations.map(
      ({ path, method, op }) => html`<section class="op" id="${method}-${path}">
        <h2><span class="method">${method}</span><code>${path}</code></h2>
        <p><strong>${op.summary ?? ""}</strong>${op.security?.length ? " — needs an API key" : ""}</p>
        ${op.description ? html`<p>${op.description}</p>` : ""}
        ${
          op.parameters?.length
            ? html`<h3>Parameters</h3><ul>${op.parameters.map(
                (p) => html`<li><code>${p.name}</code> (${p.in}${p.required ? ", required" : ""})</li>`,
              )}</ul>`
            : ""
        }
        ${
          op.requestBody?.content?.["application/json"]
            ? html`<h3>Body</h3><pre>${schemaText(op.requestBody.content["application/json"].schema)}</pre>`
            : ""
        }
        <h3>Responses</h3>
        <ul>${Object.entries(op.responses ?? {}).map(
          ([status, response]) => html`<li><strong>${status}</strong> ${response.description ?? ""}</li>`,
        )}</ul>
      </section>`,
    )}
    <h2>Schemas</h2>
    ${Object.entries(doc.components?.schemas ?? {}).map(
      ([name, schema]) => html`<h3 id="schema-${name}">${name}</h3><pre>${raw(escapeHtml(schemaText(schema)))}</pre>`,
    )}
  </body>
</html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
