(()=>{try{const h=e=>{if(!e.cancelable)return;e.preventDefault();navigation.removeEventListener('navigate',h)};navigation.addEventListener('navigate',h)}catch(x){}})()
