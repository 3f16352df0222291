// Validates a speedscope file (argv[2]) against the schema that the
// speedscope package ships (dist/release/file-format-schema.json).
const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');

const schemaPath = path.join(path.dirname(require.resolve('speedscope/package.json')),
                             'dist', 'release', 'file-format-schema.json');
const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
delete schema.$schema; // draft-07 meta-schema: ajv knows it, no download
const ajv = new Ajv({allErrors: true, strict: false});
const validate = ajv.compile(schema);
const file = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
if (!validate(file)) {
  console.error(JSON.stringify(validate.errors, null, 2));
  process.exit(1);
}
console.log('valid speedscope file: ' + file.profiles.length + ' profile(s), ' +
            file.shared.frames.length + ' frames');
