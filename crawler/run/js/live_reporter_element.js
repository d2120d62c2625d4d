window['%s_el'](%d)
