window['%s_off']&&window['%s_off']()
