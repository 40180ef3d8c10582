// Validates an OpenAPI document with @seriousme/openapi-schema-validator
// (the official OpenAPI 3.x JSON Schemas) and prints one JSON line:
// {"valid": bool, "version": "3.1", "errors": [...]}.
// Usage: node validate-openapi.mjs FILE
import { Validator } from "@seriousme/openapi-schema-validator";

const validator = new Validator();
const result = await validator.validate(process.argv[2]);
console.log(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? [] }));
