// Reads the JUnit report cargo-nextest writes and prints where the time of
// a test run went: each test binary's total, then the slowest tests,
// slowest first, so the next slow test is seen the day it lands.
// Usage: node scripts/test-times.mjs target/nextest/default/junit.xml
import { readFileSync } from 'node:fs';

const xml = readFileSync(process.argv[2], 'utf8');
const unescape = (text) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
const attribute = (tag, name) => {
  const found = tag.match(new RegExp(`\\s${name}="([^"]*)"`));
  return found ? unescape(found[1]) : '';
};
const tests = [...xml.matchAll(/<testcase\b[^>]*>/g)].map(([tag]) => ({
  binary: attribute(tag, 'classname'),
  name: attribute(tag, 'name'),
  seconds: Number(attribute(tag, 'time')) || 0,
}));

const binaries = new Map();
for (const test of tests) {
  const total = binaries.get(test.binary) || { seconds: 0, count: 0 };
  total.seconds += test.seconds;
  total.count += 1;
  binaries.set(test.binary, total);
}
const seconds = (s) => `${s.toFixed(1).padStart(8)} s`;
console.log('\n== test binaries by their tests\' time added up (they run side by side)');
for (const [binary, total] of [...binaries].sort((a, b) => b[1].seconds - a[1].seconds).slice(0, 15)) {
  console.log(`${seconds(total.seconds)}  ${binary} (${total.count} tests)`);
}
console.log('\n== the slowest tests');
for (const test of tests.sort((a, b) => b.seconds - a.seconds).slice(0, 15)) {
  console.log(`${seconds(test.seconds)}  ${test.binary} ${test.name}`);
}
