// validate_api.mjs SCHEMA FILE -- validate the JSON document FILE against
// the JSON Schema SCHEMA with ajv (pinned in package.json): Ajv2020 for a
// draft 2020-12 schema (OpenAPI 3.1's), Ajv (draft-07) otherwise (the HAR
// 1.2 schema), with ajv-formats (uri, date-time). Prints "valid" and exits
// 0, or prints the errors (JSON, the first 20) and exits 1; 2 when a file
// cannot be read. strict is off: the schemas carry keywords of their own
// ("optional", "min" in har-schema) that a validator ignores.
import fs from 'fs';
import { createRequire } from 'module';
const require = createRequire(import.meta.url);
const Ajv = require('ajv').default;
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default;

const [schemaPath, filePath] = process.argv.slice(2);
if (!schemaPath || !filePath) {
  console.error('usage: validate_api.mjs SCHEMA FILE');
  process.exit(2);
}
let schema, doc;
try {
  schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
  doc = JSON.parse(fs.readFileSync(filePath, 'utf8'));
} catch (e) {
  console.error(String(e));
  process.exit(2);
}
// ajv resolves OpenAPI 3.1's `"$dynamicRef": "#meta"` to the wrong schema
// (ajv-validator/ajv#1573, open): a parameter's {type: string} schema is
// then checked as a parameter. In the official schema the only "meta"
// anchor is $defs/schema, so the static $ref to it means the same.
const metaAnchor = schema.$defs && schema.$defs.schema && schema.$defs.schema.$dynamicAnchor === 'meta';
const staticMeta = (x) => {
  if (Array.isArray(x)) return x.map(staticMeta);
  if (!x || typeof x !== 'object') return x;
  const o = {};
  for (const [k, v] of Object.entries(x))
    if (k === '$dynamicRef' && v === '#meta') o.$ref = '#/$defs/schema';
    else o[k] = staticMeta(v);
  return o;
};
if (metaAnchor) schema = staticMeta(schema);
const v2020 = /2020-12/.test(schema.$schema || '');
const ajv = new (v2020 ? Ajv2020 : Ajv)({ strict: false, allErrors: true, logger: false });
addFormats(ajv);
const validate = ajv.compile(schema);
if (validate(doc)) {
  console.log('valid');
  process.exit(0);
}
console.log(JSON.stringify(validate.errors.slice(0, 20), null, 1));
process.exit(1);
