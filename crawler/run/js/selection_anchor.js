(()=>{%sconst r=usel();return r?r.a:null})()
