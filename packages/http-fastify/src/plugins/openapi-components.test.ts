import { describe, expect, it } from 'vitest';
import { hoistTitledSchemas } from './openapi-components.js';

describe('hoistTitledSchemas', () => {
  const event = { title: 'Event', type: 'object', properties: { uid: { type: 'string' } } };
  it('moves titled schemas to components and refers to them, nested ones first', () => {
    const doc = {
      paths: { '/x': { get: { responses: { 200: { content: { 'application/json': { schema: { title: 'Page', type: 'array', items: event } } } } } } } },
      components: { securitySchemes: { bearerAuth: { type: 'http' } } },
    };
    const out = hoistTitledSchemas(doc, { Extra: { type: 'string' } });
    expect(out.paths['/x'].get.responses[200].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Page' });
    expect(out.components).toEqual({
      securitySchemes: { bearerAuth: { type: 'http' } },
      schemas: { Event: event, Extra: { type: 'string' }, Page: { title: 'Page', type: 'array', items: { $ref: '#/components/schemas/Event' } } },
    });
  });
  it('leaves titles inside examples and outside schemas alone', () => {
    const doc = { info: { title: 'calsync' }, paths: { '/x': { post: { requestBody: { content: { 'application/json': { schema: { type: 'object' }, example: { title: 'Stand-up' } } } } } } } };
    expect(hoistTitledSchemas(doc)).toEqual({ ...doc, components: { schemas: {} } });
  });
  it('shows a union of string literals as one enum', () => {
    const doc = { x: { schema: { description: 'd', anyOf: [{ type: 'string', enum: ['A'] }, { type: 'string', enum: ['B'] }] } } };
    expect(hoistTitledSchemas(doc).x.schema).toEqual({ description: 'd', type: 'string', enum: ['A', 'B'] });
  });
  it('refuses two different schemas under one title', () => {
    const doc = { a: { schema: event }, b: { schema: { ...event, type: 'string' } } };
    expect(() => hoistTitledSchemas(doc)).toThrow(/Event/);
  });
});
