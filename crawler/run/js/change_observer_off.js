window['%s__off']&&window['%s__off']()
