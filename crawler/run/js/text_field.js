function(){
/* text_field.js -- called on a text field (act_text.c): its owner form's method, action, the names of its
   buttons (submit or not: a script's "Create" button submits as much as a submit does) and
   whether the form asks for personal data; a search landmark or a list around it; and the texts of the items
   nearest to it (its datalist, the list it controls, a list in its section) as [text, column header]. Reads
   only. Form properties through HTMLFormElement.prototype: a field named "action" cannot stand in for them. */
const el=this,up=n=>n.parentElement||(n.parentNode&&n.parentNode.host)||null;
const vis=n=>{if(!n.getClientRects().length)return false;const s=getComputedStyle(n);return s.visibility!=='hidden'&&s.display!=='none'};
const txt=n=>String(n.innerText||n.textContent||'').replace(/\s+/g,' ').trim().slice(0,120);
const FP=HTMLFormElement.prototype,get=(o,k)=>Object.getOwnPropertyDescriptor(FP,k).get.call(o);
const r={m:null,a:null,s:[],p:0,l:0,c:0,i:[]};
const f=el.form instanceof HTMLFormElement?el.form:null;
if(f){
  const fe=[...get(f,'elements')],subs=fe.filter(x=>x!==el&&(x.type==='submit'||x.type==='image'));
  const d=subs[0]||null,m=(d&&d.getAttribute('formmethod'))||f.getAttribute('method')||'get';
  r.m=m.trim().toLowerCase()||'get';
  const act=(d&&d.getAttribute('formaction'))||f.getAttribute('action')||'';
  try{r.a=new URL(act,document.baseURI).href}catch(e){r.a=act}
  const btns=fe.filter(x=>x!==el&&(x.type==='submit'||x.type==='image'||x.type==='button'||x.tagName==='BUTTON'));
  r.s=btns.slice(0,8).map(x=>(x.getAttribute('aria-label')||txt(x)||x.value||x.alt||x.title||'').slice(0,60));
  const pa=/\b(cc-|one-time-code|current-password|new-password|email|tel|name|given-name|family-name|additional-name|nickname|street-address|address-line|address-level|postal-code|country|bday|sex|username|organization)/;
  r.p=fe.some(x=>{const t=String(x.type||'').toLowerCase(),a=String(x.getAttribute('autocomplete')||'').toLowerCase();
    return t==='password'||t==='email'||t==='tel'||t==='file'||pa.test(a)})?1:0;
}
for(let n=up(el);n;n=up(n))if(n.tagName==='SEARCH'||(n.getAttribute&&n.getAttribute('role')==='search')){r.l=1;break}
const IT='li,[role=option],[role=listitem],[role=row],tbody tr,[role=gridcell],[role=treeitem],dt';
const head=c=>{const t=c.closest('table');if(!t||!c.cells)return '';const h=t.querySelector('thead th,tr th');return h?txt(h):''};
const item=n=>{const c=n.cells&&n.cells[0];return [txt(c||n),c?head(n):'']};
const push=t=>{if(r.i.length<12&&t[0])r.i.push(t)};
const add=list=>{for(const n of list){if(r.i.length>=12)break;if(!n.contains(el)&&vis(n))push(item(n))}};
if(el.list&&el.list.options)for(const o of el.list.options)push([String(o.value||o.label||'').slice(0,120),'']);
const ctl=el.getAttribute('aria-controls');
if(ctl){const t=el.getRootNode().getElementById?el.getRootNode().getElementById(ctl):document.getElementById(ctl);if(t)add(t.querySelectorAll(IT))}
let k=0;
for(let n=up(el);n&&k<5&&n.tagName!=='BODY'&&n.tagName!=='HTML';n=up(n),k++){
  const its=[...n.querySelectorAll(IT)].filter(x=>!x.contains(el)&&vis(x));
  if(its.length>=2){r.c=1;add(its);break}
}
if(!r.i.length)add([...document.querySelectorAll(IT)].slice(0,40));
return r}
