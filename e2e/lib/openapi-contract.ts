import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** One answer seen on the wire during a test run. */
export interface RecordedAnswer {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

/** Collects every answer the test's HTTP traffic received, to be checked against the document later. */
export class AnswerRecorder {
  readonly answers: RecordedAnswer[] = [];

  /** Keeps one answer. */
  record(answer: RecordedAnswer): void {
    this.answers.push(answer);
  }

  /** A `fetch` that records every answer it returns (for clients that take a fetch, such as the SDK). */
  fetch(inner: typeof fetch = fetch): typeof fetch {
    return async (input, init) => {
      const request = new Request(input, init);
      const res = await inner(request);
      const text = await res.clone().text();
      this.record({ method: request.method, path: new URL(request.url).pathname, status: res.status, contentType: res.headers.get('content-type') ?? '', text });
      return res;
    };
  }
}

interface MediaObject {
  readonly schema?: unknown;
}
interface ResponseObject {
  readonly content?: Readonly<Record<string, MediaObject>>;
}
interface OperationObject {
  readonly operationId?: string;
  readonly responses: Readonly<Record<string, ResponseObject>>;
}
/** The parts of an OpenAPI 3.1 document this checker reads. */
export interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Readonly<Record<string, Readonly<Record<string, OperationObject>>>>;
  readonly components?: { readonly schemas?: Readonly<Record<string, unknown>> };
}

const pointer = (...parts: string[]): string => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/**
 * Checks answers against an OpenAPI 3.1 document: the path and method must be an operation, the
 * status one of its documented responses, the content type a documented one, and a JSON body
 * valid against that response's schema (JSON Schema 2020-12, formats included), so a wrong
 * error code, a missing field or a "yesterday" instant is a mismatch.
 */
export class OpenApiChecker {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: { method: string; template: string; pattern: RegExp }[] = [];

  constructor(private readonly doc: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema(doc as object, 'openapi.json');
    for (const [template, item] of Object.entries(doc.paths)) {
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const method of Object.keys(item)) this.templates.push({ method: method.toUpperCase(), template, pattern });
    }
  }

  /** The documented operation an answer belongs to, or undefined. */
  operationOf(method: string, path: string): { template: string; operation: OperationObject } | undefined {
    const hit = this.templates.find((t) => t.method === method && t.pattern.test(path));
    if (!hit) return undefined;
    const operation = this.doc.paths[hit.template]?.[method.toLowerCase()];
    return operation ? { template: hit.template, operation } : undefined;
  }

  /** Everything wrong with one answer (empty when it matches the document). */
  problems(answer: RecordedAnswer): string[] {
    const where = `${answer.method} ${answer.path} ${answer.status}`;
    const found = this.operationOf(answer.method, answer.path);
    if (!found && answer.status === 404) return this.validate('openapi.json#/components/schemas/ErrorEnvelope', answer.text, where);
    if (!found) return [`${where}: no such operation in the document`];
    const response = found.operation.responses[String(answer.status)];
    if (!response) return [`${where}: status not documented (documented: ${Object.keys(found.operation.responses).join(', ')})`];
    if (answer.status === 304 || response.content === undefined) return [];
    const mediaType = Object.keys(response.content).find((m) => answer.contentType.startsWith(m));
    if (mediaType === undefined) return [`${where}: content type ${answer.contentType} not documented`];
    if (!mediaType.includes('json')) return [];
    const ref = `openapi.json#/${pointer('paths', found.template, answer.method.toLowerCase(), 'responses', String(answer.status), 'content', mediaType, 'schema')}`;
    return this.validate(ref, answer.text, where);
  }

  private validate(ref: string, text: string, where: string): string[] {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`${where}: body is not JSON`];
    }
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => `${where}: ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }

  /** Problems of every answer, and how many answers each operation had. */
  checkAll(answers: readonly RecordedAnswer[]): { problems: string[]; seen: Map<string, number> } {
    const problems: string[] = [];
    const seen = new Map<string, number>();
    for (const a of answers) {
      // The documentation routes describe the API; they are not part of it.
      if (a.path === '/api-docs-json' || a.path.startsWith('/api-docs/') || a.path === '/api-docs') continue;
      problems.push(...this.problems(a));
      const id = this.operationOf(a.method, a.path)?.operation.operationId;
      if (id) seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    return { problems, seen };
  }
}
