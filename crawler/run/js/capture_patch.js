(()=>{
/* capture_patch.js -- the patched capture's witness in the page (page_patch.c).
 * The script's value is a function of one MODE: 'base' records the page as it
 * is now (sent just before a full capture's snapshot: its baseline), 'diff'
 * tells whether anything but form-control values may have changed since:
 * then why, a string (a full capture is due); else the array of the form controls
 * whose value, checked or selected state changed (the baseline moves to now).
 * Without a DOM mutation, a CSSOM edit, a change of what a state selector
 * (:hover, :focus, :checked, ...; the page's and the browser's own:
 * :popover-open, :modal, ...) matches, a toggle event, a running animation,
 * an image loading, a scroll, a resize or new fonts, no box and no computed style can
 * change: the snapshot of the baseline holds, but for the values. Anything
 * it cannot vouch for counts as a change: an event listener added
 * (DOMSnapshot's isClickable), a shadow root attached, a frame, another URL,
 * a style sheet it cannot read, too many state selectors. */
const W=window,K='__uiap_cp',D=document;
let s=W[K];
if(!s){
  s={dirty:1,total:0,ctl:new WeakMap(),look:null};
  try{Object.defineProperty(W,K,{value:s})}catch(e){return()=>null}
  const bump=w=>{s.dirty++;s.total++;s.why=typeof w==='string'?w:w&&w.type?w.type:w&&w.length?'mutation '+w[0].type+' '+(w[0].attributeName||''):'?'};
  try{
    const P=EventTarget.prototype,A=P.addEventListener;
    P.addEventListener=function(t){bump('listener '+t);return A.apply(this,arguments)};
    A.call(W,'scroll',bump,true);
    A.call(W,'resize',bump,true);
    A.call(W,'load',bump,true);
    A.call(W,'error',bump,true);
    A.call(W,'animationstart',bump,true);
    A.call(W,'transitionrun',bump,true);
    A.call(W,'toggle',bump,true);
    A.call(W,'beforetoggle',bump,true);
    A.call(W,'fullscreenchange',bump,true);
    const E=Element.prototype,S=E.attachShadow;
    if(S)E.attachShadow=function(){bump('shadow');return S.apply(this,arguments)};
    const C=CSSStyleSheet.prototype;
    for(const n of ['insertRule','deleteRule','addRule','removeRule','replace','replaceSync']){
      const f=C[n];if(typeof f==='function')C[n]=function(){bump('cssom');return f.apply(this,arguments)};
    }
    for(const proto of [HTMLElement.prototype,Document.prototype,Window.prototype,SVGElement.prototype]){
      for(const n of Object.getOwnPropertyNames(proto)){
        if(!n.startsWith('on'))continue;
        const d=Object.getOwnPropertyDescriptor(proto,n);
        if(!d||!d.set||!d.configurable)continue;
        Object.defineProperty(proto,n,{configurable:true,enumerable:d.enumerable,get:d.get,
          set:function(v){bump(n);return d.set.call(this,v)}});
      }
    }
    s.mo=new MutationObserver(bump);
    s.mo.observe(D,{subtree:true,childList:true,attributes:true,characterData:true});
  }catch(e){s.broken=1}
}
const STATE=/:(hover|focus|focus-within|focus-visible|active|checked|indeterminate|valid|invalid|in-range|out-of-range|user-valid|user-invalid|placeholder-shown|blank|autofill|-webkit-autofill|target|target-within|open|closed|popover-open|modal|fullscreen|picture-in-picture|playing|paused|muted|buffering|stalled|seeking)\b/;
/* the state selectors of the page's style sheets (a pseudo-element cut off), null: cannot tell */
const selectors=()=>{
  const out=[],sheets=[...D.styleSheets,...(D.adoptedStyleSheets||[])];
  let text='';
  const walk=rules=>{
    for(const r of rules){
      text+=r.cssText;
      if(r.selectorText&&STATE.test(r.selectorText)&&out.length>=400)throw 0; /* too many to follow */
      if(r.selectorText&&STATE.test(r.selectorText))out.push(r.selectorText.replace(/::?(before|after|marker|placeholder|selection|first-line|first-letter|backdrop|file-selector-button|-webkit-[\w-]+)\b/g,''));
      if(r.cssRules)walk(r.cssRules);
    }
  };
  try{for(const sh of sheets)walk(sh.cssRules)}catch(e){return null}
  return {out,text};
};
const look=()=>{
  if(s.broken||D.querySelector('iframe,frame,object,embed,portal,fencedframe'))return null;
  /* a shadow root: attachShadow counts as a change, and a snapshot that has one is never patched */
  const ss=selectors();
  if(!ss)return null;
  let m='';
  try{for(const q of ss.out)m+='|'+[...D.querySelectorAll(q||'*')].map(e=>s.ix(e)).join(',')}catch(e){return null}
  /* the states the browser's own style sheet reads (a popover shows without a DOM mutation) */
  for(const q of [':popover-open',':modal',':fullscreen',':open',':picture-in-picture']){
    try{m+='|'+[...D.querySelectorAll(q)].map(e=>s.ix(e)).join(',')}catch(e){}
  }
  let im='';
  for(const i of D.images)im+=i.complete+','+i.naturalWidth+','+i.naturalHeight+','+i.currentSrc+';';
  let an=0;
  try{an=D.getAnimations().length}catch(e){an=-1}
  if(an)return null;
  return [location.href,W.scrollX,W.scrollY,W.innerWidth,W.innerHeight,W.devicePixelRatio,
    D.fonts?D.fonts.status+D.fonts.size:'',ss.text,m,im].join('\n');
};
if(!s.ids){s.ids=new WeakMap();s.n=0}
s.ix=e=>{let k=s.ids.get(e);if(!k){k=++s.n;s.ids.set(e,k)}return k};
const ctlState=el=>el.tagName==='OPTION'?(el.selected?'1':'0'):el.type==='checkbox'||el.type==='radio'?
  (el.checked?'1':'0')+(el.indeterminate?'i':''):el.value;
const box=el=>{const r=el.getBoundingClientRect();return r.x+','+r.y+','+r.width+','+r.height};
const controls=()=>D.querySelectorAll('input,textarea,select,option');
return mode=>{
  if(s.mo){const t=s.mo.takeRecords();if(t.length)bump(t)}
  if(mode==='base'){
    s.look=look();
    for(const el of controls())s.ctl.set(el,[ctlState(el),box(el)]);
    s.dirty=0;
    return s.look!==null;
  }
  if(s.dirty)return 'changed: '+s.why;
  if(s.look===null)return 'no baseline';
  const now=look();
  if(now===null)return 'cannot vouch';
  if(now!==s.look)return 'changed: '+now.split('\n').findIndex((x,i)=>x!==s.look.split('\n')[i]);
  const changed=[];
  for(const el of controls()){
    const v=ctlState(el),was=s.ctl.get(el);
    if(was===undefined)return 'a new control';
    if(box(el)!==was[1])return 'a control moved or grew'; /* field-sizing: content */
    if(v!==was[0]){changed.push(el);was[0]=v}
  }
  return changed;
};
})()
