(()=>{try{const f=window['%s'];if(f)f(%d)}catch(e){}})()
