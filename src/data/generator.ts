// The deterministic synthetic market generator lives in ./generator/ (start at its index.ts); this
// module keeps the `./generator.ts` import path working.

export {
  GENERATOR_ORIGIN_DAY,
  GENERATOR_VERSION,
  generateDay,
  generatorAnchorTicks,
  generatorSpan,
  type GeneratorSpan,
  type GeneratorSpanOptions,
} from './generator/index.ts';
