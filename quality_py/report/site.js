(function(){
function params(){var o={};location.hash.replace(/^#/,'').split('&').forEach(function(p){
 if(!p)return;var i=p.indexOf('=');o[decodeURIComponent(p.slice(0,i))]=decodeURIComponent(p.slice(i+1));});return o;}
function store(o){var s=Object.keys(o).filter(function(k){return o[k]!=='';}).map(function(k){
 return encodeURIComponent(k)+'='+encodeURIComponent(o[k]);}).join('&');
 history.replaceState(null,'',s?'#'+s:location.pathname+location.search);}
function cell(r,i){var c=r.cells[i];if(!c)return '';return c.getAttribute('data-sort')||c.textContent;}
function apply(t,o){var q=(o.q||'').toLowerCase(),st=o.status||'';var shown=0;
 Array.prototype.forEach.call(t.tBodies[0].rows,function(r){
  var ok=(!q||r.textContent.toLowerCase().indexOf(q)>=0)&&(!st||r.getAttribute('data-status')===st);
  if(ok){r.removeAttribute('hidden');shown++;}else{r.setAttribute('hidden','');}});
 if(o.sort){var col=parseInt(o.sort,10),desc=/d$/.test(o.sort),th=t.tHead.rows[0].cells[col];
  var num=th&&th.getAttribute('data-type')==='number';var rows=Array.prototype.slice.call(t.tBodies[0].rows);
  rows.sort(function(a,b){var x=cell(a,col),y=cell(b,col);var c;
   if(num){x=parseFloat(x);y=parseFloat(y);x=isNaN(x)?-Infinity:x;y=isNaN(y)?-Infinity:y;c=x-y;}
   else{c=x.localeCompare(y);}return desc?-c:c;});
  rows.forEach(function(r){t.tBodies[0].appendChild(r);});}
 var n=document.querySelector('[data-count-for="'+t.id+'"]');if(n)n.textContent=shown;}
document.querySelectorAll('table.filtered').forEach(function(t){
 var o=params(),q=document.querySelector('input[data-filter="'+t.id+'"]'),
  s=document.querySelector('select[data-filter="'+t.id+'"]');
 if(q){q.value=o.q||'';q.addEventListener('input',function(){var p=params();p.q=q.value;store(p);apply(t,p);});}
 if(s){s.value=o.status||'';s.addEventListener('change',function(){var p=params();p.status=s.value;store(p);apply(t,p);});}
 Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){th.classList.add('sortable');
  th.addEventListener('click',function(){var p=params();p.sort=i+(p.sort===i+'a'?'d':'a');store(p);apply(t,p);});});
 apply(t,o);});
document.body.setAttribute('data-ready','1');
})();
