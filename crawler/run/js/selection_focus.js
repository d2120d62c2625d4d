(()=>{%sconst r=usel();return r?r.f:null})()
