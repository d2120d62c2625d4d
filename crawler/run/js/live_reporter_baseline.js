window['%s_base']&&window['%s_base']()
