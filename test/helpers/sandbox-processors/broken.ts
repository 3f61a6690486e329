/** Fixture: a module that throws while it loads. */
throw new Error('this module refuses to load');
