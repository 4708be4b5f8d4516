/// The page's fixed parts: style, the elements the script fills in, and the script. The script reads the data from
/// `#report-data` and `#world-data` and draws only what is in view, at the track level the zoom calls for; it keeps
/// the view's bounds, zoom and level on `#map` (`data-view`, `data-zoom`, `data-level`, `data-state="rendered"` once
/// drawn), which is what tests and anyone scripting the page read.
enum ReportScript {
    static let css = #"""
        body{font-family:system-ui,sans-serif;margin:16px;color:#222}
        h1{font-size:20px} h2{font-size:16px;margin-top:24px} h3{font-size:14px;margin:4px 0}
        #layout{display:flex;gap:12px;align-items:stretch}
        #map{position:relative;flex:1;height:560px;border:1px solid #ccc;background:#dfe9f2;overflow:hidden;cursor:grab;touch-action:none;user-select:none}
        #tiles,#overlay{position:absolute;left:0;top:0}
        #tiles img{position:absolute;max-width:none}
        .land{fill:#f4f1e8;stroke:#b9b2a0;stroke-width:.7}
        .region{fill:#6a51a3;fill-opacity:.14;stroke:#6a51a3;stroke-width:1}
        .region.touched{fill:#e6550d;stroke:#e6550d}
        .region-label{font-size:11px;fill:#3f007d;paint-order:stroke;stroke:#fff;stroke-width:3px}
        .track{fill:none;stroke-width:2;stroke-opacity:.85;stroke-linejoin:round}
        .start{stroke:#fff;stroke-width:1.5} .end{stroke:#fff;stroke-width:1.5}
        .transition{stroke:#fff;stroke-width:1;cursor:pointer}
        .selected{fill:none;stroke:#000;stroke-width:2.5}
        #attribution{position:absolute;right:0;bottom:0;background:rgba(255,255,255,.8);font-size:11px;padding:1px 4px}
        #mapnote{position:absolute;left:0;bottom:0;background:rgba(255,255,255,.8);font-size:11px;padding:1px 4px}
        #explain{width:340px;height:560px;overflow:auto;border:1px solid #ccc;padding:8px;font-size:13px;box-sizing:border-box}
        #explain dt{font-weight:600;margin-top:4px} #explain dd{margin:0 0 0 8px}
        table{border-collapse:collapse;font-size:12px} td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}
        tr.entry td:nth-child(3){color:#2ca02c} tr.exit td:nth-child(3){color:#d62728}
        #notifications tbody tr{cursor:pointer} tr.chosen{background:#ffe9a8}
        .swatch{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}
        .note{color:#666;font-size:12px}
        """#

    static let body = #"""
        <div id="layout"><div id="map" data-state="loading"><div id="tiles"></div><svg id="overlay" xmlns="http://www.w3.org/2000/svg"></svg><div id="mapnote"></div><div id="attribution"></div></div>
        <aside id="explain"><p class="note">Select a transition — a dot on the map or a row of the table — to see the fix behind it, its accuracy, the dwell, and the fixes refused near it.</p></aside></div>
        <div id="legend"></div>
        <h2>Timeline: inside intervals and notifications per device</h2>
        <p class="note" id="timeline-note"></p>
        <svg id="timeline" xmlns="http://www.w3.org/2000/svg"></svg>
        <h2>Notifications</h2>
        <p>Device: <select id="device-filter"><option value="-1">all devices</option></select> <span class="note" id="table-note"></span></p>
        <table id="notifications"><thead><tr><th>fired at</th><th>device</th><th>event</th><th>request</th><th>region</th><th>near</th><th>accuracy</th></tr></thead><tbody></tbody></table>
        <h2>Refused fixes per device</h2>
        <div id="refused"></div>

        """#

    static let script = #"""
        (function(){
        'use strict';
        var D=JSON.parse(document.getElementById('report-data').textContent);
        var WORLD=JSON.parse(document.getElementById('world-data').textContent);
        var map=document.getElementById('map'),svg=document.getElementById('overlay'),tilesDiv=document.getElementById('tiles');
        var PAL=['#1f77b4','#d62728','#2ca02c','#9467bd','#ff7f0e','#8c564b','#e377c2','#17becf','#bcbd22','#393b79'];
        var ND=D.devices.length,NT=D.transitions.length/8,E5=1e5,LIMIT=3000,CIRC=40075016.686;
        // Proximity transitions: the other device and the distance (cm), by transition.
        var PAIR={};(function(){var P=D.pairs||[];for(var k=0;k<P.length;k+=3)PAIR[P[k]]=[P[k+1],P[k+2]];})();
        // Transitions come as differences from the one before (see ReportPage.writeTransitions): made absolute once.
        (function(){var T=D.transitions,t=0,la=0,lo=0;for(var k=0;k<T.length;k+=8){t+=T[k+3];T[k+3]=t;
          if(T[k+4]!==null){la+=T[k+4];lo+=T[k+5];T[k+4]=la;T[k+5]=lo;T[k+7]=t-T[k+7];}}})();
        function color(d){return d<PAL.length?PAL[d]:'hsl('+Math.round((d*137.508)%360)+',70%,40%)';}
        function X(lon){return (lon+180)/360;}
        function Y(lat){var s=Math.sin(lat*Math.PI/180);s=Math.min(0.9999,Math.max(-0.9999,s));return 0.5-Math.log((1+s)/(1-s))/(4*Math.PI);}
        function LON(x){return x*360-180;}
        function LAT(y){return Math.atan(Math.sinh(Math.PI*(1-2*y)))*180/Math.PI;}
        function esc(s){return String(s).replace(/[&<>"']/g,function(c){return '&#'+c.charCodeAt(0)+';';});}
        function iso(ms){return new Date(D.t0+ms).toISOString().replace('.000Z','Z');}
        function dur(ms){var s=Math.round(Math.abs(ms)/1000);if(s<60)return s+' s';var m=Math.floor(s/60);if(m<60)return m+' min '+(s%60)+' s';return Math.floor(m/60)+' h '+(m%60)+' min';}
        function metres(lat1,lon1,lat2,lon2){var r=Math.PI/180,a=Math.sin((lat2-lat1)*r/2),b=Math.sin((lon2-lon1)*r/2);
          var h=a*a+Math.cos(lat1*r)*Math.cos(lat2*r)*b*b;return 2*6371008.8*Math.asin(Math.min(1,Math.sqrt(h)));}
        // [first, second, d1, d2, ...] to world coordinates; latFirst says which of the pair is the latitude.
        function decode(a,scale,latFirst,at){var n=(a.length-(at||0))/2,xs=new Float64Array(n),ys=new Float64Array(n),p=0,q=0,x0=1,y0=1,x1=0,y1=0;
          for(var i=0;i<n;i++){p+=a[(at||0)+2*i];q+=a[(at||0)+2*i+1];var lat=(latFirst?p:q)/scale,lon=(latFirst?q:p)/scale;
            var x=X(lon),y=Y(lat);xs[i]=x;ys[i]=y;if(x<x0)x0=x;if(x>x1)x1=x;if(y<y0)y0=y;if(y>y1)y1=y;}
          return {x:xs,y:ys,b:[x0,y0,x1,y1]};}
        var world=WORLD.rings.map(function(r){return decode(r,WORLD.scale,false);});
        var levelCache=[];
        function tracksAt(L){if(!levelCache[L])levelCache[L]=D.levels[L].t.map(function(a){return a.length?decode(a,E5,true):null;});return levelCache[L];}
        function levelFor(z){for(var i=0;i<D.levels.length;i++){if(D.levels[i].z>=z-1)return i;}return D.levels.length-1;}
        var touched={};for(var i=0;i<NT;i++)touched[D.requests[D.transitions[8*i+1]][1]]=1;
        var regions=D.regions.map(function(g,k){
          if(g[2]==='c'){var x=X(g[4]/E5),y=Y(g[3]/E5),m=g[5]/(CIRC*Math.cos(g[3]/E5*Math.PI/180));return {k:k,c:true,x:x,y:y,m:m,b:[x-m,y-m,x+m,y+m]};}
          if(g[2]==='p'){var rings=g.slice(3).map(function(r){return decode(r,E5,true);}),b=[1,1,0,0];
            rings.forEach(function(r){b=[Math.min(b[0],r.b[0]),Math.min(b[1],r.b[1]),Math.max(b[2],r.b[2]),Math.max(b[3],r.b[3])];});
            return {k:k,c:false,rings:rings,b:b};}
          return null;}).filter(function(r){return r;});
        var cx=0.5,cy=0.5,z=1,sel=-1,pending=false;
        function fit(){var w=map.clientWidth,h=map.clientHeight,b=D.bounds;if(!b){cx=0.5;cy=0.5;z=1;return;}
          var x0=X(b[1]/E5),x1=X(b[3]/E5),y0=Y(b[2]/E5),y1=Y(b[0]/E5);cx=(x0+x1)/2;cy=(y0+y1)/2;
          var dx=Math.max(x1-x0,1e-12),dy=Math.max(y1-y0,1e-12);z=Math.log2(Math.min(w*0.9/(dx*256),h*0.9/(dy*256)));z=Math.max(1,Math.min(18,z));}
        function schedule(){if(!pending){pending=true;requestAnimationFrame(function(){pending=false;draw();});}}
        function draw(){
          var w=map.clientWidth,h=map.clientHeight,s=256*Math.pow(2,z),out=[],note=[];
          var vx0=cx-w/2/s,vx1=cx+w/2/s,vy0=cy-h/2/s,vy1=cy+h/2/s;
          function px(x){return ((x-cx)*s+w/2).toFixed(1);} function py(y){return ((y-cy)*s+h/2).toFixed(1);}
          function inView(b){return b[2]>=vx0&&b[0]<=vx1&&b[3]>=vy0&&b[1]<=vy1;}
          function inside(x,y){return x>=vx0&&x<=vx1&&y>=vy0&&y<=vy1;}
          function path(r){var d='M'+px(r.x[0])+' '+py(r.y[0]);for(var i=1;i<r.x.length;i++)d+='L'+px(r.x[i])+' '+py(r.y[i]);return d+'Z';}
          svg.setAttribute('width',w);svg.setAttribute('height',h);svg.setAttribute('viewBox','0 0 '+w+' '+h);
          if(D.tiles){drawTiles(w,h,s);}else{var d='';world.forEach(function(r){if(inView(r.b))d+=path(r);});out.push('<path class="land" d="'+d+'"/>');}
          var shown=0,seen=0,labels=[];
          regions.forEach(function(r){if(!inView(r.b))return;seen++;if(shown>=LIMIT)return;shown++;var g=D.regions[r.k],cls='region'+(touched[r.k]?' touched':''),size;
            var t='<title>'+esc(g[1])+' ('+esc(g[0])+(r.c?', circle '+g[5]+' m':', polygon')+')</title>';
            if(r.c){size=r.m*s;out.push('<circle class="'+cls+'" data-region="'+esc(g[0])+'" cx="'+px(r.x)+'" cy="'+py(r.y)+'" r="'+Math.max(1.5,size).toFixed(1)+'">'+t+'</circle>');}
            else{size=Math.max(r.b[2]-r.b[0],r.b[3]-r.b[1])*s/2;out.push('<path class="'+cls+'" fill-rule="evenodd" data-region="'+esc(g[0])+'" d="'+r.rings.map(path).join('')+'">'+t+'</path>');}
            if(size>=12&&labels.length<300)labels.push('<text class="region-label" text-anchor="middle" x="'+px((r.b[0]+r.b[2])/2)+'" y="'+py((r.b[1]+r.b[3])/2)+'">'+esc(g[1])+'</text>');});
          if(seen>shown)note.push(shown+' of '+seen+' regions in view drawn; zoom in for the rest');
          var L=levelFor(z),T=tracksAt(L);
          for(var dv=0;dv<ND;dv++){var t=T[dv];if(!t||!inView(t.b))continue;var pts=new Array(t.x.length);
            for(var i=0;i<t.x.length;i++)pts[i]=px(t.x[i])+','+py(t.y[i]);
            out.push('<polyline class="track" data-device="'+esc(D.devices[dv])+'" stroke="'+color(dv)+'" points="'+pts.join(' ')+'"><title>'+esc(D.devices[dv])+'</title></polyline>');}
          // Many devices or transitions in view: smaller marks, so the tracks under them stay visible.
          var marks=0,mr=ND>100?3:6,trr=NT>1000?2.5:4;
          for(var dv=0;dv<ND&&marks<LIMIT;dv++){var e=D.ends[dv];if(!e)continue;var sx=X(e[1]/E5),sy=Y(e[0]/E5),ex=X(e[3]/E5),ey=Y(e[2]/E5);
            if(inside(sx,sy)){marks++;out.push('<circle class="start" data-device="'+esc(D.devices[dv])+'" fill="'+color(dv)+'" cx="'+px(sx)+'" cy="'+py(sy)+'" r="'+mr+'"><title>start of '+esc(D.devices[dv])+' '+iso(e[4])+'</title></circle>');}
            if(inside(ex,ey)){marks++;out.push('<rect class="end" data-device="'+esc(D.devices[dv])+'" fill="'+color(dv)+'" x="'+(px(ex)-mr)+'" y="'+(py(ey)-mr)+'" width="'+2*mr+'" height="'+2*mr+'"><title>end of '+esc(D.devices[dv])+' '+iso(e[5])+'</title></rect>');}}
          var tr=D.transitions,drawn=0,inv=0;
          for(var n=0;n<NT;n++){var k=8*n;if(tr[k+4]===null)continue;var x=X(tr[k+5]/E5),y=Y(tr[k+4]/E5);if(!inside(x,y))continue;inv++;if(drawn>=LIMIT)continue;drawn++;
            out.push('<circle class="transition" data-n="'+n+'" data-event="'+(tr[k+2]?'entry':'exit')+'" fill="'+(tr[k+2]?'#2ca02c':'#d62728')+'" cx="'+px(x)+'" cy="'+py(y)+'" r="'+trr+'"><title>'+(tr[k+2]?'entry ':'exit ')+esc(D.requests[tr[k+1]][0])+' — '+esc(D.devices[tr[k]])+' at '+iso(tr[k+3])+'</title></circle>');}
          if(inv>drawn)note.push(drawn+' of '+inv+' transitions in view drawn');
          if(sel>=0&&D.transitions[8*sel+4]!==null){var k=8*sel;out.push('<circle class="selected" cx="'+px(X(tr[k+5]/E5))+'" cy="'+py(Y(tr[k+4]/E5))+'" r="9"/>');}
          svg.innerHTML=out.join('')+labels.join('');
          map.dataset.view=[LAT(vy1),LON(vx0),LAT(vy0),LON(vx1)].map(function(v){return v.toFixed(5);}).join(',');
          map.dataset.zoom=z.toFixed(2);map.dataset.level=D.levels[L].z;
          document.getElementById('mapnote').textContent=note.join('; ');
          if(!map.dataset.firstDrawMs)map.dataset.firstDrawMs=Math.round(performance.now());
          map.dataset.state='rendered';
        }
        function drawTiles(w,h,s){var tz=Math.max(0,Math.min(19,Math.round(z))),n=Math.pow(2,tz),ts=s/n,html=[];
          var tx0=Math.floor((cx-w/2/s)*n),tx1=Math.floor((cx+w/2/s)*n),ty0=Math.max(0,Math.floor((cy-h/2/s)*n)),ty1=Math.min(n-1,Math.floor((cy+h/2/s)*n));
          for(var ty=ty0;ty<=ty1;ty++)for(var tx=tx0;tx<=tx1&&html.length<200;tx++){var xx=((tx%n)+n)%n;
            var url=D.tiles.url.replace('{z}',tz).replace('{x}',xx).replace('{y}',ty).replace('{s}','a');
            html.push('<img class="tile" alt="" src="'+esc(url)+'" style="left:'+((tx/n-cx)*s+w/2).toFixed(1)+'px;top:'+((ty/n-cy)*s+h/2).toFixed(1)+'px;width:'+ts.toFixed(1)+'px;height:'+ts.toFixed(1)+'px">');}
          tilesDiv.innerHTML=html.join('');}
        document.getElementById('attribution').textContent=D.tiles?(D.tiles.attribution||D.tiles.url):'Outlines: Natural Earth (public domain)';
        // Pan, zoom, reset.
        map.addEventListener('wheel',function(e){e.preventDefault();var r=map.getBoundingClientRect(),s=256*Math.pow(2,z);
          var ox=e.clientX-r.left-r.width/2,oy=e.clientY-r.top-r.height/2,wx=cx+ox/s,wy=cy+oy/s;
          z=Math.max(0,Math.min(21,z+(e.deltaY<0?0.5:-0.5)));s=256*Math.pow(2,z);cx=wx-ox/s;cy=wy-oy/s;schedule();},{passive:false});
        var drag=null;
        map.addEventListener('pointerdown',function(e){drag={x:e.clientX,y:e.clientY,cx:cx,cy:cy,moved:false,id:e.pointerId};});
        map.addEventListener('pointermove',function(e){if(!drag)return;var dx=e.clientX-drag.x,dy=e.clientY-drag.y;
          if(!drag.moved&&Math.abs(dx)+Math.abs(dy)<4)return;if(!drag.moved){drag.moved=true;map.setPointerCapture(drag.id);}
          var s=256*Math.pow(2,z);cx=drag.cx-dx/s;cy=drag.cy-dy/s;schedule();});
        map.addEventListener('pointerup',function(){drag=null;});
        map.addEventListener('dblclick',function(){fit();schedule();});
        svg.addEventListener('click',function(e){var n=e.target.getAttribute&&e.target.getAttribute('data-n');if(n!==null&&n!==undefined)select(+n);});
        // The explain panel.
        function select(n){if(!(n>=0&&n<NT))return;sel=n;var tr=D.transitions,k=8*n,dv=tr[k],rq=D.requests[tr[k+1]],g=D.regions[rq[1]],entry=tr[k+2]===1;
          var h='<h3 id="explain-title">'+(entry?'Entry into ':'Exit from ')+esc(g[1])+'</h3><dl>';
          h+='<dt>Request</dt><dd>'+esc(rq[0])+'</dd><dt>Region</dt><dd>'+esc(g[1])+' ('+esc(g[0])+(g[2]==='c'?', circle of '+g[5]+' m':g[2]==='p'?', polygon':g[2]==='m'?', within '+g[3]+' m of another device':', beacon')+')</dd>';
          h+='<dt>Device</dt><dd><span class="swatch" style="background:'+color(dv)+'"></span>'+esc(D.devices[dv])+'</dd><dt>Fired at</dt><dd>'+iso(tr[k+3])+'</dd>';
          if(PAIR[n])h+='<dt>Near</dt><dd id="explain-near"><span class="swatch" style="background:'+color(PAIR[n][0])+'"></span>'+esc(D.devices[PAIR[n][0]])+', '+(PAIR[n][1]/100).toFixed(1)+' m apart</dd>';
          if(tr[k+4]!==null){var lat=tr[k+4]/E5,lon=tr[k+5]/E5;
            h+='<dt>Fix</dt><dd>'+iso(tr[k+7])+' at '+lat.toFixed(5)+', '+lon.toFixed(5)+'</dd>';
            h+='<dt>Accuracy</dt><dd id="explain-accuracy">'+(tr[k+6]>=0?'± '+(tr[k+6]/10)+' m':'not given (counted as 0 m)')+'</dd>';
            if(g[2]==='c'){var m=metres(lat,lon,g[3]/E5,g[4]/E5)-g[5];h+='<dt>Edge</dt><dd>'+Math.abs(m).toFixed(1)+' m '+(m<=0?'inside':'outside')+' the circle\'s edge</dd>';}}
          h+='<dt>Dwell</dt><dd id="explain-dwell">';
          var since=-1;for(var j=n-1;j>=0;j--){var q=8*j;if(tr[q]===dv&&D.requests[tr[q+1]][1]===rq[1]&&tr[q+2]===1){since=j;break;}}
          if(entry)h+=rq[2]>0?'the request asks for '+dur(rq[2]*1000)+' inside before an entry fires':'none: the entry fires on the first fix inside';
          else h+=since>=0?'inside for '+dur(tr[k+3]-tr[8*since+3])+', since the entry at '+iso(tr[8*since+3]):'no entry of this device into this region in the replay (it started inside, or its entries are not notified)';
          h+='</dd>';
          var ft=tr[k+4]!==null?tr[k+7]:tr[k+3],near=[],R=D.refused,WINDOW=600000;
          for(var j=0;j<R.length;j+=5)if(R[j]===dv&&Math.abs(R[j+1]-ft)<=WINDOW)near.push(j);
          near.sort(function(a,b){return Math.abs(R[a+1]-ft)-Math.abs(R[b+1]-ft);});
          h+='<dt>Refused fixes of '+esc(D.devices[dv])+' within 10 min</dt><dd><ul id="explain-refused">';
          if(!near.length)h+='<li>none</li>';
          near.slice(0,20).forEach(function(j){var dt=R[j+1]-ft;h+='<li class="refused-near" data-reason="'+D.reasons[R[j+4]][0]+'">'+iso(R[j+1])+' ('+(dt>=0?'+':'−')+dur(dt)+'): <b>'+D.reasons[R[j+4]][0]+'</b> — '+esc(D.reasons[R[j+4]][1])+(R[j+2]!==null?' at '+(R[j+2]/E5).toFixed(5)+', '+(R[j+3]/E5).toFixed(5):'')+'</li>';});
          if(near.length>20)h+='<li>and '+(near.length-20)+' more</li>';
          h+='</ul></dd></dl>';
          document.getElementById('explain').innerHTML=h;document.getElementById('explain').dataset.selected=n;
          Array.prototype.forEach.call(document.querySelectorAll('tr.chosen'),function(r){r.classList.remove('chosen');});
          var row=document.querySelector('#notifications tr[data-n="'+n+'"]');if(row)row.classList.add('chosen');
          schedule();}
        // Legend, timeline, tables.
        var MAXDEV=50,legend=[];for(var dv=0;dv<Math.min(ND,MAXDEV);dv++)legend.push('<span class="device-key"><span class="swatch" style="background:'+color(dv)+'"></span>'+esc(D.devices[dv])+'</span>');
        document.getElementById('legend').innerHTML=legend.join(' ')+(ND>MAXDEV?' <span class="note">and '+(ND-MAXDEV)+' more devices</span>':'')+' <span class="note">● start ■ end</span>';
        (function(){var tw=1000,rowH=22,left=150,rows=Math.min(ND,MAXDEV),span=Math.max(1,D.t1),tl=[],open={};
          function tx(ms){return (left+Math.max(0,Math.min(1,ms/span))*tw).toFixed(1);}
          for(var dv=0;dv<rows;dv++){var ry=dv*rowH+20;tl.push('<text x="0" y="'+(ry+14)+'" font-size="12">'+esc(D.devices[dv])+'</text><rect x="'+left+'" y="'+(ry+2)+'" width="'+tw+'" height="'+(rowH-6)+'" fill="#f2f2f2"/>');}
          var tr=D.transitions;
          function bar(dv,a,b,rg){var ry=dv*rowH+20;tl.push('<rect class="inside" data-device="'+esc(D.devices[dv])+'" x="'+tx(a)+'" y="'+(ry+2)+'" width="'+Math.max(1,tx(b)-tx(a)).toFixed(1)+'" height="'+(rowH-6)+'" fill="'+color(dv)+'" fill-opacity="0.5"><title>'+esc(D.devices[dv])+' inside '+esc(D.regions[rg][1])+' '+iso(a)+' – '+iso(b)+'</title></rect>');}
          for(var n=0;n<NT;n++){var k=8*n,dv=tr[k];if(dv>=rows)continue;var rg=D.requests[tr[k+1]][1],key=dv+':'+rg,ry=dv*rowH+20;
            if(tr[k+2]===1){if(!(key in open))open[key]=tr[k+3];}else if(key in open){bar(dv,open[key],tr[k+3],rg);delete open[key];}
            tl.push('<line x1="'+tx(tr[k+3])+'" x2="'+tx(tr[k+3])+'" y1="'+ry+'" y2="'+(ry+rowH-2)+'" stroke="'+(tr[k+2]?'#2ca02c':'#d62728')+'" stroke-width="2"/>');}
          Object.keys(open).forEach(function(key){var p=key.split(':');bar(+p[0],open[key],D.t1,+p[1]);});
          tl.push('<text x="'+left+'" y="12" font-size="11">'+iso(0)+'</text><text x="'+(left+tw)+'" y="12" font-size="11" text-anchor="end">'+iso(D.t1)+'</text>');
          var t=document.getElementById('timeline');t.setAttribute('width',left+tw+10);t.setAttribute('height',rows*rowH+30);t.innerHTML=tl.join('');
          document.getElementById('timeline-note').textContent=ND>rows?'The first '+rows+' of '+ND+' devices.':'';})();
        var filter=document.getElementById('device-filter');
        for(var dv=0;dv<Math.min(ND,2000);dv++){var o=document.createElement('option');o.value=dv;o.textContent=D.devices[dv];filter.appendChild(o);}
        var ROWS=500;
        function table(){var want=+filter.value,tr=D.transitions,rows=[],all=0;
          for(var n=0;n<NT;n++){var k=8*n;if(want>=0&&tr[k]!==want)continue;all++;if(rows.length>=ROWS)continue;var rq=D.requests[tr[k+1]];
            rows.push('<tr class="'+(tr[k+2]?'entry':'exit')+(n===sel?' chosen':'')+'" data-n="'+n+'"><td>'+iso(tr[k+3])+'</td><td>'+esc(D.devices[tr[k]])+'</td><td>'+(tr[k+2]?'entry':'exit')+'</td><td>'+esc(rq[0])+'</td><td>'+esc(D.regions[rq[1]][1])+'</td><td class="near">'+(PAIR[n]?esc(D.devices[PAIR[n][0]])+', '+(PAIR[n][1]/100).toFixed(1)+' m':'')+'</td><td>'+(tr[k+6]>=0?'± '+tr[k+6]/10+' m':'')+'</td></tr>');}
          document.querySelector('#notifications tbody').innerHTML=rows.join('');
          document.getElementById('table-note').textContent=all>rows.length?'the first '+rows.length+' of '+all+' (choose a device for its own)':all+' notifications';}
        filter.addEventListener('change',table);
        document.querySelector('#notifications tbody').addEventListener('click',function(e){var r=e.target.closest('tr');if(r)select(+r.dataset.n);});
        (function(){var R=D.refused,by={},h=[],shown=0;for(var j=0;j<R.length;j+=5)(by[R[j]]=by[R[j]]||[]).push(j);
          var totals=D.reasons.filter(function(r){return r[2]>0;}).map(function(r){return r[2]+' '+r[0];});
          h.push('<p class="note" id="refused-totals">'+(totals.length?'In all: '+totals.join(', ')+'.':'No fix was refused.')+(R.length/5<D.reasons.reduce(function(a,r){return a+r[2];},0)?' Only the first '+(R.length/5)+' are listed.':'')+'</p>');
          Object.keys(by).map(Number).sort(function(a,b){return a-b;}).forEach(function(dv){if(shown>=ROWS)return;
            h.push('<h3>'+esc(D.devices[dv])+' ('+by[dv].length+')</h3><table class="refused-table" data-device="'+esc(D.devices[dv])+'"><tr><th>time</th><th>reason</th><th>meaning</th><th>position</th></tr>');
            by[dv].forEach(function(j){if(shown++>=ROWS)return;h.push('<tr class="refused" data-reason="'+D.reasons[R[j+4]][0]+'"><td>'+iso(R[j+1])+'</td><td>'+D.reasons[R[j+4]][0]+'</td><td>'+esc(D.reasons[R[j+4]][1])+'</td><td>'+(R[j+2]!==null?(R[j+2]/E5).toFixed(5)+', '+(R[j+3]/E5).toFixed(5):'')+'</td></tr>');});
            h.push('</table>');});
          document.getElementById('refused').innerHTML=h.join('');})();
        table();
        fit();draw();
        function fromHash(){var m=/n=(\d+)/.exec(location.hash);if(m)select(+m[1]);}
        window.addEventListener('hashchange',fromHash);fromHash();
        })();
        """#
}
