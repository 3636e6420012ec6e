describe('timing allowance (TEST_TIMING_SCALE)', () => {
  const load = (scale: string | undefined): typeof import('./timing') => {
    const before = process.env.TEST_TIMING_SCALE;
    if (scale === undefined) delete process.env.TEST_TIMING_SCALE;
    else process.env.TEST_TIMING_SCALE = scale;
    try {
      let mod: typeof import('./timing') | undefined;
      jest.isolateModules(() => {
        mod = require('./timing');
      });
      return mod!;
    } finally {
      if (before === undefined) delete process.env.TEST_TIMING_SCALE;
      else process.env.TEST_TIMING_SCALE = before;
    }
  };

  it('leaves the bounds as written by default', () => {
    expect(load(undefined).allowance(600)).toBe(600);
    expect(load('').allowance(600)).toBe(600);
  });

  it('scales only the allowance it is given', () => {
    expect(load('2.5').allowance(600)).toBe(1500);
  });

  it('refuses a scale that would shrink a bound, or is not a number', () => {
    expect(() => load('0.5')).toThrow('TEST_TIMING_SCALE must be a number of at least 1, not 0.5');
    expect(() => load('fast')).toThrow(/TEST_TIMING_SCALE must be/);
  });
});
